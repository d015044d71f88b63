// Renders a batch of TeX strings with KaTeX in one Node process (start-up costs ~0.1 s, so the
// build sends every formula of the book at once). stdin: JSON [[tex, display], ...];
// stdout: JSON [{"html": ...} | {"error": ...}, ...] in the same order.
const katex = require("katex");
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const jobs = JSON.parse(input);
  const out = jobs.map(([tex, display]) => {
    try {
      return { html: katex.renderToString(tex, {
        displayMode: display, output: "htmlAndMathml", throwOnError: true, strict: "ignore",
        trust: false,
      }) };
    } catch (err) {
      return { error: String(err.message || err) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
