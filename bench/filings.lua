-- wrk script: POST filings, spread over the recordings in RFS_BENCH_IDS, each with a new
-- externalId so that every request is a real (not replayed) filing.
local ids = {}
for id in string.gmatch(os.getenv("RFS_BENCH_IDS"), "[^,]+") do ids[#ids + 1] = id end
local key = os.getenv("RFS_BENCH_KEY")
local counter = 0

request = function()
  counter = counter + 1
  local id = ids[(counter % #ids) + 1]
  local body = '{"provider":"bench","externalId":"E' .. counter .. '-' .. math.random(1, 1000000000) .. '"}'
  return wrk.format("POST", "/api/v1/recordings/" .. id .. "/filings",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }, body)
end
