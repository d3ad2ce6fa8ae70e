#!/usr/bin/env node
// Runs shell commands side by side, two at a time (CI machines have 2 cores), each one's output
// printed whole when it ends so that logs do not interleave; exits non-zero if any failed.
// Usage: node scripts/run-parallel.mjs "tsc -p server" "tsc -p web" …
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
const slots = Math.max(1, Number(process.env.PARALLEL_JOBS ?? 2));
let next = 0;
let failed = 0;

function run(command) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n> ${command} (${code === 0 ? 'ok' : `exit ${code}`}, ${seconds} s)\n`);
      process.stdout.write(Buffer.concat(output));
      if (code !== 0) failed += 1;
      resolve();
    });
  });
}

async function worker() {
  while (next < commands.length) await run(commands[next++]);
}

await Promise.all(Array.from({ length: Math.min(slots, commands.length) }, worker));
process.exit(failed ? 1 : 0);
