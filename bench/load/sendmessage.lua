-- wrk script for the load bench: POSTs one JSON-RPC SendMessage per request and checks every
-- response: HTTP 200 and a body containing TASK_STATE_COMPLETED, else it is counted as bad.
--
-- Environment:
--   BENCH_DATA   the Data Part (JSON) to send; empty means a text part "ping" (the SDK peer)
--   BENCH_LIMIT  stop after about this many responses in all (0 or unset: run for -d)
--   BENCH_THREADS  wrk's -t, to split BENCH_LIMIT across threads
--   BENCH_DONE_DIR where each thread leaves `done.N` once it has its share of BENCH_LIMIT
-- Every message has a fresh messageId (thread number + counter).
-- done() prints one line `BENCH key=value ...` that run.sh parses.

local data = os.getenv("BENCH_DATA") or ""
local limit = tonumber(os.getenv("BENCH_LIMIT") or "0") or 0
local nthreads = tonumber(os.getenv("BENCH_THREADS") or "1") or 1
done_dir = os.getenv("BENCH_DONE_DIR") or ""

local part
if data == "" then
  part = '{"text":"ping"}'
else
  part = '{"data":' .. data .. ',"mediaType":"application/json"}'
end

local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

-- Per-thread state (each wrk thread has its own Lua state); globals, so that done() can read
-- them with thread:get().
counter = 0
responses = 0
non200 = 0
incomplete = 0
sample = ""
my_limit = 0

function init(args)
  if limit > 0 then
    my_limit = math.ceil(limit / nthreads)
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["A2A-Version"] = "1.0"
end

function request()
  counter = counter + 1
  local body = '{"jsonrpc":"2.0","id":' .. counter ..
    ',"method":"SendMessage","params":{"message":{"messageId":"bench-' .. tid .. '-' .. counter ..
    '","role":"ROLE_USER","parts":[' .. part .. ']}}}'
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  responses = responses + 1
  if status ~= 200 then
    non200 = non200 + 1
    if sample == "" then sample = status .. " " .. string.sub(body or "", 1, 300) end
  elseif not string.find(body, "TASK_STATE_COMPLETED", 1, true) then
    incomplete = incomplete + 1
    if sample == "" then sample = status .. " " .. string.sub(body or "", 1, 300) end
  end
  if my_limit > 0 and responses == my_limit then
    -- wrk's main thread sleeps for the whole -d whatever its threads do: leave a mark so
    -- run.sh can interrupt wrk (SIGINT ends it and still runs done()) once every thread is
    -- through.
    if done_dir ~= "" then
      local f = io.open(done_dir .. "/done." .. tid, "w")
      if f then f:close() end
    end
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local checked, bad_status, bad_body, first = 0, 0, 0, ""
  for _, t in ipairs(threads) do
    checked = checked + t:get("responses")
    bad_status = bad_status + t:get("non200")
    bad_body = bad_body + t:get("incomplete")
    local s = t:get("sample")
    if first == "" and s ~= nil and s ~= "" then first = s end
  end
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    "BENCH requests=%d checked=%d duration_s=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f " ..
    "non200=%d not_completed=%d connect_err=%d read_err=%d write_err=%d timeout_err=%d\n",
    summary.requests, checked, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, bad_status, bad_body, e.connect, e.read, e.write, e.timeout))
  if first ~= "" then
    io.write("BENCH_SAMPLE " .. string.gsub(first, "\n", " ") .. "\n")
  end
end
