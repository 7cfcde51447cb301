-- wrk script for POST /api/event: cycles through hits written by
-- `node bench/collect-load.mjs wrk-file --out FILE` (user agent, accept-language, client IP
-- and body per line, tab-separated), counts accepted, dropped and other answers, and prints
-- one JSON line prefixed with RESULT at the end.
--
--   wrk -t1 -c64 -d15s -s bench/wrk-collect.lua http://127.0.0.1:PORT -- FILE

local requests = {}
local index = 0
-- Globals, so done() can read each thread's counts with thread:get().
accepted, dropped, other = 0, 0, 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  local file = assert(io.open(args[1], "r"))
  for line in file:lines() do
    local agent, language, ip, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    if body then
      requests[#requests + 1] = wrk.format("POST", "/api/event", {
        ["Content-Type"] = "text/plain;charset=UTF-8",
        ["User-Agent"] = agent,
        ["Accept-Language"] = language,
        ["X-Forwarded-For"] = ip,
      }, body)
    end
  end
  file:close()
  -- Threads start at different places so they do not send the same hits in step.
  index = ((id or 1) - 1) * 7919 % #requests
end

function request()
  index = index % #requests + 1
  return requests[index]
end

function response(status, headers, body)
  if status == 202 then
    if headers["x-analytics-dropped"] or headers["X-Analytics-Dropped"] then
      dropped = dropped + 1
    else
      accepted = accepted + 1
    end
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local a, d, o = 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("accepted")
    d = d + thread:get("dropped")
    o = o + thread:get("other")
  end
  local errors = summary.errors
  io.write(string.format(
    'RESULT {"requests":%d,"durationUs":%d,"bytes":%d,"accepted":%d,"dropped":%d,"other":%d,'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},'
      .. '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes, a, d, o,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean))
end
