'use strict';
/**
 * The two load generators, each its own process: `wrk` (closed loop, as fast as the target
 * answers) with a Lua script cycling through a file of pre-signed deliveries, and the
 * open-loop fixed-rate generator in `open-loop.js`.
 */
const { spawn } = require('node:child_process');
const { createWriteStream } = require('node:fs');
const { join } = require('node:path');
const { STRIPE_PATH } = require('./events');

const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
const LUA = join(__dirname, '..', 'wrk', 'stripe-events.lua');

/**
 * Writes deliveries as the Lua script reads them: id TAB signature TAB body, one per line.
 * @param {{ id: string, signature: string, body: string }[]} lines
 * @param {string} file
 */
function writeDeliveryFile(lines, file) {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file);
    out.on('error', reject);
    out.on('finish', resolve);
    let i = 0;
    const writeMore = () => {
      let ok = true;
      while (ok && i < lines.length) {
        const line = lines[i];
        ok = out.write(`${line.id}\t${line.signature}\t${line.body}\n`);
        i += 1;
      }
      if (i < lines.length) out.once('drain', writeMore);
      else out.end();
    };
    writeMore();
  });
}

/** Runs a child to completion; resolves to its stdout, rejects with its stderr on failure. */
function run(command, args, { pinCpu } = {}) {
  const [file, argv] = pinCpu ? ['taskset', ['-c', pinCpu, command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${file} exited with ${code}: ${stderr.trim() || stdout.trim()}`));
    });
  });
}

function benchJson(stdout, what) {
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) {
    throw new Error(`${what} printed no result:\n${stdout.slice(-2000)}`);
  }
  return JSON.parse(line.slice('BENCH_JSON '.length));
}

/**
 * Closed-loop load with wrk for `durationSec` on `path` (default the Stripe endpoint every target
 * but the peer has); per-thread counts come from the Lua script.
 * @returns wrk's summary: completed, errors, latencyUs, threads [{ sent, ok, non2xx, statuses }]
 */
async function runWrk({
  url,
  path = STRIPE_PATH,
  file,
  threads,
  connections,
  durationSec,
  pinCpu,
}) {
  const stdout = await run(
    WRK,
    [
      `-t${threads}`,
      `-c${connections}`,
      `-d${durationSec}s`,
      '--timeout',
      '10s',
      '-s',
      LUA,
      url,
      '--',
      file,
      String(threads),
      path,
    ],
    { pinCpu },
  );
  return benchJson(stdout, 'wrk');
}

/**
 * Open-loop load at `rate` requests/s for `durationSec` on `path` (see open-loop.js).
 * @returns counts and latency percentiles in ms, measured from each request's due time
 */
async function runOpenLoop({
  url,
  path = STRIPE_PATH,
  rate,
  durationSec,
  tag,
  ackedIdsFile,
  warmupSec,
  pinCpu,
}) {
  const stdout = await run(
    process.execPath,
    [
      join(__dirname, 'open-loop.js'),
      JSON.stringify({ url, path, rate, durationSec, tag, ackedIdsFile, warmupSec }),
    ],
    { pinCpu },
  );
  return benchJson(stdout, 'the open-loop generator');
}

module.exports = { writeDeliveryFile, runWrk, runOpenLoop, WRK };
