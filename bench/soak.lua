-- wrk script for the soak: cycles through a mix of reviews (allowed, denied,
-- mutated, malformed) and checks every answer against what that body must get.
--   SOAK_DIR  folder holding allowed.json, denied.json, mutated.json, malformed.json
local dir = assert(os.getenv("SOAK_DIR"), "set SOAK_DIR")
local function read(name)
  local f = assert(io.open(dir .. "/" .. name, "rb"))
  local body = f:read("*a")
  f:close()
  return body
end
local cases = {
  {path = "/validate", body = read("allowed.json"), status = 200, expect = '"allowed":true'},
  {path = "/validate", body = read("denied.json"), status = 200, expect = '"code":422'},
  {path = "/mutate", body = read("mutated.json"), status = 200, expect = '"patchType":"JSONPatch"'},
  {path = "/validate", body = read("malformed.json"), status = 400, expect = "not valid JSON"},
}
local requests = {}
for i, c in ipairs(cases) do
  requests[i] = wrk.format("POST", c.path .. "?timeout=10s", {["Content-Type"] = "application/json"}, c.body)
end
local sent, seen, unexpected = 0, 0, 0
-- wrk pipelines nothing here: answers come back in the order the requests went out.
local queue = {}
function request()
  sent = sent + 1
  local i = (sent % #cases) + 1
  table.insert(queue, i)
  return requests[i]
end
function response(status, headers, body)
  local i = table.remove(queue, 1)
  seen = seen + 1
  local c = cases[i]
  if status ~= c.status or not string.find(body, c.expect, 1, true) then unexpected = unexpected + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("SOAK requests=%d unexpected=%d errors=%d p99_us=%d\n", summary.requests,
    unexpected, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(99)))
end
