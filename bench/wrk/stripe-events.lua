-- Sends pre-signed Stripe deliveries from a file, one request per line, cycling when the file
-- runs out. Line format: <event id> TAB <Stripe-Signature header> TAB <JSON body>.
-- Usage: wrk -t<T> -c<C> -d<D> -s stripe-events.lua <url> -- <file> <threads> <path>
-- Thread i (from 0) sends lines i, i+T, i+2T, ... in order, so the runner knows exactly which
-- deliveries were sent from the per-thread counts printed by done() as one JSON line.

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

-- Per-thread state (each wrk thread has its own Lua state).
local requests = {}
sent = 0
ok = 0
non2xx = 0
statuses = ""
local counts = {}

function init(args)
  -- NOTE: wrk passes the URL as args[0]; the arguments after "--" start at args[1].
  local file = args[1]
  local stride = tonumber(args[2]) or 1
  local path = args[3] or "/webhooks/stripe"
  local n = 0
  for line in io.lines(file) do
    if n % stride == thread_index then
      local _, signature, body = line:match("^([^\t]*)\t([^\t]*)\t(.*)$")
      requests[#requests + 1] = wrk.format("POST", path, {
        ["Content-Type"] = "application/json",
        ["Stripe-Signature"] = signature,
      }, body)
    end
    n = n + 1
  end
  if #requests == 0 then
    error("no deliveries for thread " .. thread_index .. " in " .. file)
  end
end

function request()
  sent = sent + 1
  return requests[((sent - 1) % #requests) + 1]
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    ok = ok + 1
  else
    non2xx = non2xx + 1
    counts[status] = (counts[status] or 0) + 1
    local parts = {}
    for code, count in pairs(counts) do
      parts[#parts + 1] = string.format('"%d":%d', code, count)
    end
    statuses = table.concat(parts, ",")
  end
end

function done(summary, latency, requests)
  local per_thread = {}
  for _, thread in ipairs(threads) do
    per_thread[#per_thread + 1] = string.format(
      '{"sent":%d,"ok":%d,"non2xx":%d,"statuses":{%s}}',
      thread:get("sent"), thread:get("ok"), thread:get("non2xx"), thread:get("statuses"))
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"durationUs":%d,"completed":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d},"threads":[%s]}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, table.concat(per_thread, ",")))
end
