# Sourced by scripts/render-nginx and scripts/install: what both add to the rendered site
# include, on the text in a variable of theirs (named as the first argument).
#
#   nginx_site_apply CONF_TEXT_VARIABLE FIRST_SERVER "NODE ..." "ADDRESS ..." ["HOMESERVER ..."] \
#       ["SENDER ..."]
#
# applies the four below; each prints an error and returns 2 on a bad value.

nginx_site_apply() {
    nginx_nodes_apply "$1" "$2" "$3" && nginx_operator_addresses_apply "$1" "$4" &&
        nginx_matrix_homeservers_apply "$1" "${5:-}" && nginx_sender_addresses_apply "$1" "${6:-}"
}

# The send side's limit per client address (PUSHGATE_NGINX_SENDER_RATE, default 100r/s, and
# PUSHGATE_NGINX_SENDER_BURST, default 1000), checked, as the two lines `RATE` and `BURST`
# for the template's @PUSHGATE_NGINX_SENDER_RATE@ and @PUSHGATE_NGINX_SENDER_BURST@.
nginx_sender_limits() {
    local rate="${PUSHGATE_NGINX_SENDER_RATE:-100r/s}" burst="${PUSHGATE_NGINX_SENDER_BURST:-1000}"
    if ! [[ "$rate" =~ ^[1-9][0-9]*r/[sm]$ ]]; then
        echo "PUSHGATE_NGINX_SENDER_RATE must look like 100r/s or 600r/m, not '$rate'" >&2
        return 2
    fi
    if ! [[ "$burst" =~ ^[0-9]+$ ]]; then
        echo "PUSHGATE_NGINX_SENDER_BURST must be a number of requests, not '$burst'" >&2
        return 2
    fi
    printf '%s\n%s\n' "$rate" "$burst"
}

# The lines BEFORE + ADDRESS + AFTER, one per ADDRESS of the words of LIST, each an IP address
# or CIDR range: only address characters are taken, so nothing else reaches nginx's syntax.
# Prints them; says which SETTING's entry is not one and returns 2.
nginx_address_lines() {
    local setting="$1" list="$2" before="$3" after="$4" address
    for address in $list; do
        if ! [[ "$address" =~ ^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$ ]]; then
            echo "$setting: '$address' is not an IP address or CIDR range" >&2
            return 2
        fi
        printf '%s%s%s\n' "$before" "$address" "$after"
    done
}

# A line `ADDRESS 1;` per SENDER (an IP address or CIDR range; PUSHGATE_NGINX_SENDER_ADDRESSES,
# commas or spaces between) in the template's `geo $pushgate_listed_sender` block: senders the
# send side's rate limit never holds back.
nginx_sender_addresses_apply() {
    local -n sender_site="$1"
    local lines
    lines=$(nginx_address_lines PUSHGATE_NGINX_SENDER_ADDRESSES "${2//,/ }" "    " " 1;") || return
    [[ -n "$lines" ]] || return 0
    local marker="geo \$pushgate_listed_sender {"$'\n'"    default 0;"$'\n'
    [[ "$sender_site" == *"$marker"* ]] || { echo "the template has no listed senders' geo block" >&2; return 1; }
    sender_site="${sender_site/"$marker"/$marker$lines$'\n'}"
}

# The Matrix location's `allow` lines: one per HOMESERVER (an IP address or CIDR range;
# PUSHGATE_MATRIX_HOMESERVERS, commas or spaces between), in place of the template's loopback
# lines. Empty: the template's loopback stays.
nginx_matrix_homeservers_apply() {
    local -n matrix_site="$1"
    local lines
    lines=$(nginx_address_lines PUSHGATE_MATRIX_HOMESERVERS "${2//,/ }" "        allow " ";") || return
    [[ -n "$lines" ]] || return 0
    local marker="        allow 127.0.0.0/8;"$'\n'"        allow ::1/128;"$'\n'
    [[ "$matrix_site" == *"$marker"* ]] || { echo "the template has no Matrix location's allow lines" >&2; return 1; }
    matrix_site="${matrix_site/"$marker"/$lines$'\n'}"
}

# An `allow` line per ADDRESS (an IP address or CIDR range; PUSHGATE_NGINX_OPERATOR_ADDRESSES,
# spaces between) after each of the operator pages' `allow ::1;`.
nginx_operator_addresses_apply() {
    local -n site="$1"
    local lines
    lines=$(nginx_address_lines PUSHGATE_NGINX_OPERATOR_ADDRESSES "$2" "        allow " ";") || return
    [[ -n "$lines" ]] || return 0
    site="${site//$'\n'"        allow ::1;"/$'\n'"        allow ::1;"$'\n'"$lines"}"
}

#   nginx_nodes_apply CONF_TEXT_VARIABLE FIRST_SERVER "NODE ..."
#
# Each NODE is `unix:/path.sock` or `IPv4:PORT`. Every node goes into the shared upstream in
# place of FIRST_SERVER's line; node K (1..N in this order) also gets an upstream of its own
# and an exact `/metrics/node/K` location, so that each node can be scraped (a scrape of
# /metrics reaches one node at random). Prints an error and returns 2 on a bad node.
nginx_nodes_apply() {
    local -n text="$1"
    local first="$2" nodes="$3"
    local servers="" upstreams="" locations="" count=0 node
    for node in $nodes; do
        if ! [[ "$node" =~ ^unix:/[A-Za-z0-9._/+-]+$ || "$node" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}:[0-9]{1,5}$ ]]; then
            echo "PUSHGATE_NGINX_NODES: '$node' is neither unix:/PATH nor IPv4:PORT" >&2
            return 2
        fi
        count=$((count + 1))
        servers+="    server $node;"$'\n'
        upstreams+="upstream pushgate_node_$count {"$'\n'"    server $node;"$'\n'"    keepalive 2;"$'\n'"}"$'\n'
        locations+="    location = /metrics/node/$count {"$'\n'"        allow 127.0.0.1;"$'\n'"        allow ::1;"$'\n'"        deny all;"$'\n'"        error_page 403 413 429 502 504 @pushgate_text_error;"$'\n'"        fastcgi_pass pushgate_node_$count;"$'\n'"    }"$'\n'
    done
    [[ $count -gt 0 ]] || return 0
    local marker="    server $first;"
    [[ "$text" == *"$marker"$'\n'* ]] || { echo "the template has no '$marker' line to replace with the nodes" >&2; return 1; }
    text="${text/"$marker"$'\n'/$servers}"
    marker="# --- the server "
    [[ "$text" == *"$marker"* ]] || { echo "the template has no '$marker' line" >&2; return 1; }
    text="${text/"$marker"/$upstreams$'\n'$marker}"
    marker="    location ^~ /metrics/node/ {"
    [[ "$text" == *"$marker"* ]] || { echo "the template has no /metrics/node/ location" >&2; return 1; }
    text="${text/"$marker"/$locations$marker}"
}
