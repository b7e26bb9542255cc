-- The Token Reporter GET as a phone sends it: each request reports a different account
-- (selector) with its own token, so every request is one real upsert.
local counter = 0
local thread_id = 0

function setup(thread)
    thread:set("thread_id", thread_id)
    thread_id = thread_id + 1
end

function request()
    counter = counter + 1
    -- Accounts cycle through 20,000 per thread: the table grows, then updates dominate.
    local n = (counter % 20000) + thread_id * 1000000
    local selector = string.format("%040X:%08X", n, n)
    -- 43 digits and '=' are base64 for 32 bytes: a token per account.
    local token = string.format("%043d%%3D", n)
    return wrk.format("GET", "/token/?username=bench&selector=" .. selector ..
        "&token_calls=" .. token .. "&appid_calls=com.example.bench.pushkit" ..
        "&token_msgs=" .. token .. "&appid_msgs=com.example.bench")
end
