//! One stream's timeline: when each delta arrived, was committed to the DOM, and was painted.

pub mod align;
pub mod blocked;
pub mod entries;
pub mod record;
pub mod session;
pub mod state;
pub mod visible;
