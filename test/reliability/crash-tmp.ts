import { crash } from './scenarios/index.js';
import { FULL } from './support/sizes.js';
for (let i = 0; i < 2; i++) {
  const r = await crash(FULL);
  console.log(`run ${i}: ${r.runs} runs, ${r.failures} failures`, JSON.stringify(r.checks.filter((c) => c.failed > 0)), JSON.stringify(r.figures));
}
