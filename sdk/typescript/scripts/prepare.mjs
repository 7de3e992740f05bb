#!/usr/bin/env node
// `prepare` (run by `npm install ./sdk/typescript` and by `npm pack`): compile src/ into dist/. A fresh checkout has
// no devDependencies yet (npm does not install them for a folder dependency), so they are installed first from the
// lockfile, exactly as pinned.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const run = (command, args) => {
  const done = spawnSync(command, args, { cwd: root, stdio: "inherit", shell: false });
  if (done.status !== 0) process.exit(done.status ?? 1);
};
if (!existsSync(tsc)) {
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  run(command, [...args, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
}
run(process.execPath, [tsc, "-p", "tsconfig.json"]);
