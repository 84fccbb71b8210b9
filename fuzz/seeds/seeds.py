#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets whose inputs are short texts, tokens,
frames and Redis replies (the records are written by `cargo run --manifest-path
fuzz/seeds/Cargo.toml`). Run from the repository root: python3 fuzz/seeds/seeds.py"""

import base64
import hashlib
import hmac
import json
import os
import shutil

CORPUS = "fuzz/corpus"
# The fuzz target's secret (fuzz/fuzz_targets/jwt.rs), so that valid tokens verify.
SECRET = b"fuzz-secret-of-the-keys-under-test"


def write(target, name, content):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(content)


def many(target, items):
    for i, item in enumerate(items):
        write(target, f"seed-{i:02}", item)


many("point_text", [
    "h8", "H8", "a1", "o15", "O15", " h8 ", "h08", "p1", "h0", "h16", "a", "8", "", "ｈ8",
    "kansei", "Kagetsu", "1D", "13I", "26", "0", "寒星局", "寒星", "random", "RANDOM",
    "freestyle", "renju-lose", "renju-refuse", "renju-claim", "renju-swap", "classic",
])

many("card_text", [
    "S3 HT BJ RJ", "♠3♥10", "s3,h4+c5", "BJ", "RJ", "bj rj", "S3 S3", "SJ", "H10",
    "S3 H3 C3 D3", "BR", "X", "3 3 3 4", "10 J Q K A", "3 4 5 6 7\n4 5 6 7 8",
    "2 2\nX D", "3 3 3 3\nX D", "3 3 3 4 4\n5 5 5 6 6", "3 3 4 4 5 5\n6 6 7 7 8 8",
    "3 3 3 4 4 4 5 6\n7 7 7 8 8 8 9 T", "A A A A 2 2\n3 3 3 3",
    "S3 H4 C5 D6 S7 H8 C9 DT SJ HQ CK DA S2 BJ RJ H3 C4\n3 4 5 6 7 8 9",
])

many("names", [
    "张三", "Zoë", "Zoe\u0308", "👩\u200d💻", "👨\u200d👩\u200d👧", " alice", "alice ",
    "a\u202eb", "a\u200bb", "a\tb", "a\u2028b", "\ufeffalice", "twelve chars", "thirteen char",
    "x" * 64, "x" * 65, "gomoku-free", "gomoku-renju", "doudizhu-classic", "Gomoku", "room_1",
    "player-1@example.com", "table:1.2", "gomoku", "doudizhu", "renju-swap", "classic",
    "waiting", "seated", "gomoku-free.0190a0b0c0d0e0f00112233445566778",
    "gomoku-free\n20\np1.0001700000000000.table-1", "gomoku-free\n0\n", "gomoku-free\n-1\n",
    "doudizhu-classic\n99\np1.0001700000000000.t:1", "gomoku-free\n5\np1.17.t",
])

# Rooms files: the shipped one, each room alone, and a few broken on purpose.
with open("services/matchmaking/rooms.toml") as f:
    rooms = f.read()
write("rooms_file", "shipped.toml", rooms)
blocks = rooms.split("[[rooms]]")
for i, block in enumerate(blocks[1:]):
    write("rooms_file", f"room-{i:02}.toml", "[[rooms]]" + block)
write("rooms_file", "cap.toml", "0\n" + "[[rooms]]" + blocks[1])
write("rooms_file", "empty.toml", "rooms = []\n")
write("rooms_file", "twice.toml", "[[rooms]]" + blocks[1] + "[[rooms]]" + blocks[1])


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def token(header, claims, secret=SECRET):
    message = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = hmac.new(secret, message.encode(), hashlib.sha256).digest()
    return message + "." + b64url(signature)


# The fuzz Ed25519 keys' public halves and kids (RFC 7638 thumbprints, as gamehub makes them).
ISSUER_X = "z57Wclz933lEizRCTLMtZv4i4fQdrbDjhAp6GVrKDL8"
SERVICE_X = "xM35a-osZpDI3Fy9nTXXExArK2zt0oZHP1FRlO8fbBQ"


def thumbprint(x):
    canonical = '{"crv":"Ed25519","kty":"OKP","x":"%s"}' % x
    return b64url(hashlib.sha256(canonical.encode()).digest())


ISSUER_KID, SERVICE_KID = thumbprint(ISSUER_X), thumbprint(SERVICE_X)
hs256 = {"alg": "HS256", "typ": "JWT"}
far = 4_102_444_800  # 2100-01-01
many("jwt", [
    token(hs256, {"sub": "alice", "role": "player", "exp": far, "iat": 0}),
    token(hs256, {"sub": "ledger", "role": "service", "exp": far, "iat": 0}),
    token(hs256, {"sub": "root", "role": "operator", "exp": far, "iat": 0}),
    token(hs256, {"sub": "alice", "role": "player", "exp": 1, "iat": 0}),
    token(hs256, {"sub": "alice", "role": "player", "exp": far, "iat": 0}, b"another key"),
    token({"alg": "none"}, {"sub": "alice", "role": "player", "exp": far}),
    token({"alg": "HS512"}, {"sub": "alice", "role": "player", "exp": far}),
    token(hs256, {"sub": "a b", "role": "player", "exp": far}),
    token(hs256, {"role": "player", "exp": far}),
    token(hs256, {"sub": "alice", "role": "king", "exp": far}),
    '{"alg":"HS256","typ":"JWT"}\n{"sub":"alice","role":"player","exp":4102444800,"iat":0}',
    '{"alg":"HS256","kid":"k1"}\n{"sub":"x","role":"service","exp":4102444800,"nbf":1}',
    '{"alg":"HS256"}\n{"sub":"' + "y" * 70 + '","role":"player","exp":4102444800}',
    "eyJhbGciOiJIUzI1NiJ9.e30.", "not a token", "a.b.c", "player", "operator",
    # Signed in the target with the fuzz Ed25519 keys (fuzz/src/keys.rs), by their kid.
    '{"alg":"EdDSA","kid":"' + ISSUER_KID + '"}\n{"sub":"alice","role":"player","exp":4102444800}',
    '{"alg":"EdDSA","kid":"' + SERVICE_KID + '"}\n{"sub":"ledger","role":"service","exp":4102444800}',
    '{"alg":"EdDSA","kid":"' + SERVICE_KID + '"}\n{"sub":"root","role":"operator","exp":4102444800}',
    '{"alg":"ES256","kid":"' + ISSUER_KID + '"}\n{"sub":"alice","role":"player","exp":4102444800}',
])

# JWKS documents and private key files (fuzz/fuzz_targets/jwks.rs).
with open("fuzz/src/keys.rs") as f:
    pems = f.read().split('"')
issuer_pem, service_pem = pems[1], pems[3]
okp = lambda x, kid, **extra: dict({"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA",
                                    "use": "sig", "kid": kid, "x": x}, **extra)
ec = {"kty": "EC", "crv": "P-256", "alg": "ES256", "kid": "ec-1",
      "x": "e1WfpB7e8RhFPa20Uz5_p9S8TweoHVVWmOj3VJkkTYw",
      "y": "ghNN_YnvliEJTJIdtH_SRTdIh-jxEJd8PKRAoSu3d-A"}
many("jwks", [
    json.dumps({"keys": [okp(ISSUER_X, ISSUER_KID)]}),
    json.dumps({"keys": [okp(ISSUER_X, ISSUER_KID),
                         okp(SERVICE_X, SERVICE_KID, gamehub_scope="service:ledger")]}),
    json.dumps({"keys": [ec]}),
    json.dumps({"keys": [okp(SERVICE_X, ISSUER_KID)]}),
    json.dumps({"keys": [{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}]}),
    json.dumps({"keys": [okp(ISSUER_X, ISSUER_KID), okp(ISSUER_X, ISSUER_KID)]}),
    json.dumps({"keys": [okp(ISSUER_X, "k", gamehub_scope="operator")]}),
    json.dumps({"keys": []}), json.dumps({"keys": {}}), "[]", "{",
    issuer_pem, service_pem,
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgEXqPbKEkVw7kbgro\n"
    "k0lr8ZuDSogfmEgMrp/qQcxOoSahRANCAAR7VZ+kHt7xGEU9rbRTPn+n1LxPB6gd\n"
    "VVaY6PdUmSRNjIITTf2J75YhCUySHbR/0kU3SIfo8RCXfDykQKErt3fg\n"
    "-----END PRIVATE KEY-----\n",
    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
])


def frame(message, flag=0):
    return bytes([flag]) + len(message).to_bytes(4, "big") + message


def health_request(service):
    raw = service.encode()
    return b"\x0a" + bytes([len(raw)]) + raw


check = frame(health_request("gamehub.gomoku.v1.GomokuService"))
empty = frame(b"")
grpc_web = [
    # (choice byte, chunk byte, body): choice bits: 0-2 content type, 3-4 accept,
    # 5 HTTP/2, 6 GET, 7 Origin header.
    (0x00, 0, check), (0x01, 0, check), (0x80, 0, check), (0xA0, 0, check),
    (0x02, 0, base64.b64encode(check)), (0x03, 3, base64.b64encode(check)),
    (0x12, 7, base64.b64encode(check) + base64.b64encode(empty)),
    (0x00, 1, check + check), (0x00, 0, empty), (0x00, 0, frame(b"\x0a\x05hello", 1)),
    (0x00, 0, b"\x00\xff\xff\xff\xff"), (0x24, 0, check), (0x40, 0, check),
    (0x06, 0, b'{"service":""}'), (0x02, 2, b"AAAAAAA=" + b"AAAAAAA="),
    (0x02, 0, b"not base64!"), (0x00, 0, frame(b"\x80" + b"\x80" * 10)),
    (0x00, 0, b"http://localhost:5173"), (0x00, 0, b"https://play.example.com, *"),
    (0x00, 0, b"http://[::1]:3000,https://h5.example.com:8443"),
]
for i, (choice, chunk, body) in enumerate(grpc_web):
    write("grpc_web", f"seed-{i:02}", bytes([choice, chunk]) + body)


def bulk(raw):
    if isinstance(raw, str):
        raw = raw.encode()
    return b"$" + str(len(raw)).encode() + b"\r\n" + raw + b"\r\n"


def array(items):
    return b"*" + str(len(items)).encode() + b"\r\n" + b"".join(items)


def integer(n):
    return b":" + str(n).encode() + b"\r\n"


outbox = json.dumps({
    "game_id": "g-1", "table_id": "t-1", "created_ms": 1700000000000,
    "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    "request_hex": "0a03672d311203742d31",
})
event = lambda seq, audience, payload: array([bulk(f"0-{seq}"), array([
    bulk("a"), bulk(audience), bulk("p"), bulk(payload)])])
many("lua_replies", [
    array([integer(1), integer(7), integer(12)]), array([integer(0), integer(6)]),
    array([integer(2), integer(12)]), array([integer(1), integer(-1), integer(3)]),
    integer(1), integer(0), integer(2), b"+OK\r\n", b"$-1\r\n", b"*-1\r\n", b"_\r\n",
    b"-ERR unknown script\r\n", b"-NOSCRIPT No matching script\r\n",
    array([event(1, "*", b"\x08\x01"), event(2, "1", b"\x12\x02h8"), event(3, "2", b"")]),
    array([event(1, "01", b"x")]), array([event(1, "everyone", b"x")]),
    array([array([bulk("0-1"), array([bulk("p"), bulk("x")])])]),
    array([bulk("5"), bulk(b"{\"v\":1}"), bulk("9")]), array([bulk("5"), b"$-1\r\n", b"$-1\r\n"]),
    bulk(outbox), bulk("1234.5"), b",3.14\r\n", b"#t\r\n", b"(12345678901234567890\r\n",
    b"%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", b"~2\r\n:1\r\n:2\r\n", b"=15\r\ntxt:Some string\r\n",
    b">2\r\n+message\r\n+hello\r\n", b"|1\r\n+ttl\r\n:3600\r\n*1\r\n:1\r\n",
    array([integer(0), array([bulk("g-1"), bulk(outbox)])]), bulk("\u00e9" * 200),
    array([bulk("waiting"), bulk("seated"), integer(3)]),
])
print("seeds written under", CORPUS)
