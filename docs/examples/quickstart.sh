# Source it (`. quickstart.sh`), then: partner_api /usage
: "${PARTNER_API:?Set PARTNER_API to the base URL from your onboarding e-mail (it ends in /partner-api/v1)}"
: "${PARTNER_API_KEY:?Set PARTNER_API_KEY to your API key (svc_...)}"

# GET a path of the API: prints the JSON body, or one line on stderr that says what to do.
partner_api() {
  local answer status retry body
  answer=$(curl -sS -H "Authorization: Bearer $PARTNER_API_KEY" -H "Accept: application/json" \
    -w '\n%{http_code} %header{retry-after}' "$PARTNER_API$1") || return 1
  body=${answer%$'\n'*}
  read -r status retry <<<"${answer##*$'\n'}"
  case $status in
    200) printf '%s\n' "$body" ;;
    401) echo "401: the API key is missing, mistyped, revoked or expired: check PARTNER_API_KEY." >&2 ;;
    403) [[ $body =~ \"detail\":\"([^\"]*)\" ]] # names the scope the route needs
         echo "403: your agreement does not include this data. ${BASH_REMATCH[1]:-}" >&2 ;;
    404) echo "404: no such property for your account (use an id from /properties), or a wrong path." >&2 ;;
    429) echo "429: rate limit reached (120 requests a minute per key): retry in ${retry:-60} s." >&2 ;;
    *) echo "$status: $body" >&2 ;;
  esac
  [ "$status" = 200 ]
}

# Your property with your own id of it (the pms_hotel_id of its activation link): partner_property PMS-42
partner_property() {
  local id=$1 encoded='' i c
  for ((i = 0; i < ${#id}; i++)); do
    c=${id:i:1}
    case $c in
      [A-Za-z0-9._~-]) encoded+=$c ;;
      *) printf -v c '%%%02X' "'$c" && encoded+=$c ;;
    esac
  done
  partner_api "/properties?pms_hotel_id=$encoded"
}
