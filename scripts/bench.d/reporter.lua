-- The Token Reporter GET as a phone sends it: each request reports a different account
-- (selector) with its own token, so every request is one real upsert.
--
--   wrk ... -s reporter.lua URL [-- changing]
--
-- With `changing`, every report carries tokens its account never reported before (pass N
-- over the accounts reports token N), so that every report is a change to write, as when
-- phones' tokens are renewed; without it a pass reports the tokens of the pass before.
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
local changing = false
-- Per account, in changing mode: its request cut where its tokens go.
local pieces = {}

function setup(thread)
    thread:set("thread_id", threads)
    threads = threads + 1
end

local function report(selector, token)
    return wrk.format("GET", "/token/?username=bench&selector=" .. selector ..
        "&token_calls=" .. token .. "&appid_calls=com.example.bench.pushkit" ..
        "&token_msgs=" .. token .. "&appid_msgs=com.example.bench")
end

function init(args)
    changing = args[1] == "changing"
    for i = 0, accounts - 1 do
        local n = i + thread_id * 1000000
        local selector = string.format("%040X:%08X", n, n)
        -- 43 base64 digits and '=' are 32 bytes. The last digit carries only 4 bits, so it
        -- is a fixed '0' ('1' to '3' would decode to the same bytes): a token per account.
        requests[i] = report(selector, string.format("%042d0%%3D", n))
        if changing then
            local before, between, after = report(selector, "@"):match("^(.-)@(.-)@(.*)$")
            pieces[i] = { before, between, after }
        end
    end
end

-- Account N's token of pass P: P in the first 20 digits (0 is the steady token above).
local function changed_token(n, pass)
    return string.format("%020d%022d0%%3D", pass, n)
end

function request()
    counter = counter + 1
    local i = counter % accounts
    if not changing then
        return requests[i]
    end
    local token = changed_token(i + thread_id * 1000000, math.floor(counter / accounts) + 1)
    local piece = pieces[i]
    return piece[1] .. token .. piece[2] .. token .. piece[3]
end
