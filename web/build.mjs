// Builds the client into dist/ (index.html, app.js, app.css), byte for byte the same
// on every machine for the same sources and lockfile: CI rebuilds it and fails when the
// committed dist/ differs. `--tests` builds the browser tests into test-build/ instead.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";

const tests = process.argv.includes("--tests");
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
    minify: true,
    charset: "utf8",
    logLevel: "warning",
  });
  copyFileSync("src/index.html", "dist/index.html");
}
