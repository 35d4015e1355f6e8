#!/bin/sh
# A bot in any language talks to `convstate serve` over HTTP. Start the service first:
#   CONVSTATE_API_TOKEN=secret convstate serve --store support.db --port 8080
# then run: BASE=http://127.0.0.1:8080/v1 TOKEN=secret sh examples/http_client.sh
set -eu
BASE=${BASE:-http://127.0.0.1:8080/v1}
AUTH="Authorization: Bearer ${TOKEN:-secret}"
S=$BASE/sessions/order-889

# store the user's turn and the bot's reply (one message, or a list)
curl -sf -H "$AUTH" -H 'Content-Type: application/json' -X POST "$S/messages" \
  -d '{"role": "user", "content": "My order SR-20240315-889 arrived broken. No exchange, refund only."}'
echo
curl -sf -H "$AUTH" -H 'Content-Type: application/json' -X POST "$S/messages" \
  -d '[{"role": "assistant", "content": "Sorry! I will start the refund."}]'
echo
# the messages for the next model call, within a 4096-token window
curl -sf -H "$AUTH" "$S/context?window=4096"
echo
# the folded state (JSON) and the state block
curl -sf -H "$AUTH" "$S/state"
echo
curl -sf -H "$AUTH" "$S/block?format=markdown"
echo
