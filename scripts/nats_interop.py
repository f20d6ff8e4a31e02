#!/usr/bin/env python3
"""An independent client for BookSync over NATS (issue 14), with the nats-py package.

    python3 scripts/nats_interop.py nats://127.0.0.1:4222 [store] [prefix]

Reads the whole stream <prefix>_<store>_changes (an ordered consumer), watches the bucket
<prefix>_<store> for its initial values, and prints one JSON object:
  {"messages": [{"event", "epoch", "seq", "streamSeq", "parts", "msgId"}...] (a change set sent
   in parts is listed once, at its last part),
   "applied": [books after applying every change event to an empty list],
   "bucket": [books in the bucket, ids decoded from the keys]}
"""
import asyncio
import json
import sys

import nats


def decode_key(key):
    out = bytearray()
    i = 0
    while i < len(key):
        if key[i] == "=":
            out.append(int(key[i + 1:i + 3], 16))
            i += 3
        else:
            out += key[i].encode()
            i += 1
    return out.decode()


async def main(url, store, prefix):
    nc = await nats.connect(url)
    js = nc.jetstream()
    stream = f"{prefix}_{store}_changes"
    info = await js.stream_info(stream)
    last = info.state.last_seq
    messages, books = [], {}
    if last > 0:
        sub = await js.subscribe(f"{prefix}.{store}.changes", ordered_consumer=True, deliver_policy=nats.js.api.DeliverPolicy.ALL)
        while True:
            msg = await sub.next_msg(timeout=10)
            event = json.loads(msg.data)
            # A change set larger than max_payload comes as parts 1..n ("part", "parts"), each with a
            # slice of its books: applying each part in turn applies the change set; it is listed once.
            if event.get("part", event.get("parts", 1)) == event.get("parts", 1):
                messages.append({"event": event["event"], "epoch": event["epoch"], "seq": event["seq"],
                                 "streamSeq": msg.metadata.sequence.stream, "parts": event.get("parts", 1),
                                 "msgId": (msg.headers or {}).get("Nats-Msg-Id")})
            if event["event"] == "change":
                for book in event.get("inserted", []):
                    books[book["id"]] = book
                for update in event.get("updated", []):
                    books[update["new"]["id"]] = update["new"]
                for book in event.get("deleted", []):
                    books.pop(book["id"], None)
            if msg.metadata.sequence.stream >= last:
                break
        await sub.unsubscribe()
    kv = await js.key_value(f"{prefix}_{store}")
    bucket = []
    watcher = await kv.watchall(ignore_deletes=True)
    async for entry in watcher:
        if entry is None:
            break
        value = json.loads(entry.value)
        if decode_key(entry.key) != value["id"]:
            raise SystemExit(f"key {entry.key} does not decode to id {value['id']}")
        bucket.append({"id": value["id"], "name": value["name"], "author": value["author"]})
    await watcher.stop()
    await nc.close()
    key = lambda b: b["id"]
    applied = [{"id": b["id"], "name": b["name"], "author": b["author"]} for b in books.values()]
    print(json.dumps({"messages": messages, "applied": sorted(applied, key=key), "bucket": sorted(bucket, key=key)}))


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(args[0], args[1] if len(args) > 1 else "default", args[2] if len(args) > 2 else "books"))
