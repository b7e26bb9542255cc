-- The Token Reporter GET as a phone sends it: each request reports a different account
-- (selector) with its own token, so every request is one real upsert.
--
-- Accounts cycle through 20,000 per thread: the table grows, then updates dominate. The
-- requests are formatted once per thread before the run: wrk shares the two cores with
-- nginx and pushgate, and formatting each request in Lua cost it more than twice the CPU of
-- the static /healthz request (its share would be measured as pushgate's).
local accounts = 20000
local requests = {}
local counter = 0
-- Counted in wrk's main Lua state; each thread's state gets its own as the global thread_id
-- (a local of the same name would hide it: every thread would report the same accounts).
local threads = 0

function setup(thread)
    thread:set("thread_id", threads)
    threads = threads + 1
end

function init(args)
    for i = 0, accounts - 1 do
        local n = i + thread_id * 1000000
        local selector = string.format("%040X:%08X", n, n)
        -- 43 base64 digits and '=' are 32 bytes. The last digit carries only 4 bits, so it
        -- is a fixed '0' ('1' to '3' would decode to the same bytes): a token per account.
        local token = string.format("%042d0%%3D", n)
        requests[i] = wrk.format("GET", "/token/?username=bench&selector=" .. selector ..
            "&token_calls=" .. token .. "&appid_calls=com.example.bench.pushkit" ..
            "&token_msgs=" .. token .. "&appid_msgs=com.example.bench")
    end
end

function request()
    counter = counter + 1
    return requests[counter % accounts]
end
