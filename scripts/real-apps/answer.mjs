// The answer every Python chat app of `npm run real-apps` streams (issue 58): the simulator's
// words (scripts/sim.mjs `answerTokens`, seed 1), TOKENS of them (40), with a paragraph break
// before token 24 and one word in bold, so that the wire carries markdown and the page renders two
// paragraphs. Written as JSON for the apps (`TOKENS_FILE`), and read by the checks as the truth of
// what the page must show.
//
//   node scripts/real-apps/answer.mjs /tmp/answer.json
import { writeFileSync } from 'node:fs';
import { answerTokens } from '../sim.mjs';

export function appAnswer(n = Number(process.env.TOKENS) || 40) {
  const tokens = answerTokens(n, 1);
  if (n > 24) tokens[24] = `\n\n${tokens[24].trimStart()}`;
  if (n > 30) tokens[30] = ` **${tokens[30].trimStart()}**`;
  return tokens;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(process.argv[2], JSON.stringify(appAnswer()));
}
