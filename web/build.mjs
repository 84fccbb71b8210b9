// Builds the client into dist/ (index.html, app.js, app.css), byte for byte the same
// on every machine for the same sources and lockfile: CI rebuilds it and fails when the
// committed dist/ differs. `--tests` builds the browser tests into test-build/ instead.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const tests = process.argv.includes("--tests");

// The SDK (sdk/src, bundled from its sources) and the page share one copy of the API
// runtime: its imports resolve from web/node_modules even when sdk/node_modules exists
// (after `npm ci` there), so the bundle is the same either way.
const web = dirname(fileURLToPath(import.meta.url));
const oneRuntime = {
  name: "one-runtime",
  setup(b) {
    b.onResolve({ filter: /^@(bufbuild|connectrpc)\// }, (args) =>
      args.resolveDir.startsWith(web + "/sdk/") && !args.pluginData
        ? b.resolve(args.path, { kind: args.kind, resolveDir: web, pluginData: true })
        : undefined,
    );
  },
};
if (tests) {
  const entryPoints = readdirSync("tests").filter((f) => f.endsWith(".test.ts")).map((f) => `tests/${f}`);
  await build({
    entryPoints,
    outdir: "test-build",
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
} else {
  mkdirSync("dist", { recursive: true });
  await build({
    entryPoints: { app: "src/main.ts" },
    outdir: "dist",
    bundle: true,
    plugins: [oneRuntime],
    minify: true,
    format: "esm",
    target: ["chrome110", "firefox110", "safari16"],
    legalComments: "none",
    charset: "utf8",
    logLevel: "warning",
  });
  await build({
    entryPoints: { app: "src/style.css" },
    outdir: "dist",
    bundle: true,
    // The fonts are copied beside app.css as they are (below), not inlined.
    external: ["fonts/*"],
    minify: true,
    charset: "utf8",
    logLevel: "warning",
  });
  copyFileSync("src/index.html", "dist/index.html");
  // The CJK font subsets (fonts/subset.py) and their licence, as they are.
  mkdirSync("dist/fonts", { recursive: true });
  for (const font of readdirSync("src/fonts").filter((f) => f.endsWith(".woff2"))) {
    copyFileSync(`src/fonts/${font}`, `dist/fonts/${font}`);
  }
  copyFileSync("fonts/LICENSE-OFL.txt", "dist/fonts/LICENSE-OFL.txt");
}
