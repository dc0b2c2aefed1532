use tokenpaint::timeline::align::Aligner;
fn main() {
    let mut a = Aligner::new();
    let n = a.push_arrived("```python\nprint('&lt;x&gt;')\n```\nDone &amp; dusted");
    let f = a.rendered("print('<x>')\nDone & dusted", 0).unwrap();
    println!("arrived {n} frontier {f}");
    let mut b = Aligner::new();
    b.push_arrived("Paris is the capital of France.");
    println!("claims {}", b.claims("Assistant: Paris is the"));
}
