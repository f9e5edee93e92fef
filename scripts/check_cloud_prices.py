#!/usr/bin/env python3
"""Checks data/cloud_prices.json (see docs/cloud-prices.md).

Usage:  python3 scripts/check_cloud_prices.py           (checks, prints a summary table)
        python3 scripts/check_cloud_prices.py --quiet   (checks, prints errors only)

What it checks:
  * the keys of the file, of every card and of every quote, and their types;
  * every card id exists in data/gpus.json, and no id appears twice; a card the
    catalog lacks has "gpu": null with a "name" and a "note";
  * every quote is on-demand, dated (YYYY-MM or YYYY-MM-DD) and has a URL in
    its source;
  * quote usd_per_gpu_hour = usd_per_hour / gpus, rounded half-up to cents;
  * card median / min / max over the quotes' per-GPU prices (an even count:
    the mean of the two middle values, rounded half-up to cents);
  * quotes are sorted by per-GPU price;
  * the file's date is the newest quote's date.
Exit status 1 when anything is wrong. The build never runs this script.
"""
import json
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRICES = os.path.join(ROOT, "data", "cloud_prices.json")
GPUS = os.path.join(ROOT, "data", "gpus.json")
CENT = Decimal("0.01")
DAY = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
TOP_KEYS = {"schema", "about", "date", "cards"}
CARD_KEYS = {"gpu", "usd_per_gpu_hour", "quotes"}
NULL_CARD_KEYS = CARD_KEYS | {"name", "note"}
SUMMARY_KEYS = {"median", "min", "max"}
QUOTE_KEYS = {"provider", "offering", "gpus", "usd_per_hour", "usd_per_gpu_hour", "kind", "date", "source"}


def cents(x):
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


def is_number(x):
    return isinstance(x, (int, Decimal)) and not isinstance(x, bool)


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else cents((v[n // 2 - 1] + v[n // 2]) / 2)


def check(doc, catalog_ids):
    errors = []
    err = errors.append
    if set(doc) != TOP_KEYS:
        err(f"top-level keys {sorted(doc)} != {sorted(TOP_KEYS)}")
        return errors
    if doc["schema"] != 1:
        err("schema must be 1")
    if not isinstance(doc["about"], str) or not doc["about"]:
        err("about must be a non-empty string")
    if not isinstance(doc["date"], str) or not DAY.match(doc["date"]):
        err("date must be YYYY-MM-DD")
    if not isinstance(doc["cards"], list) or not doc["cards"]:
        err("cards must be a non-empty list")
        return errors
    seen = set()
    newest_day, newest_month = "", ""
    for i, card in enumerate(doc["cards"]):
        label = card.get("gpu") or card.get("name") or f"card #{i}"
        if card.get("gpu") is None:
            if set(card) != NULL_CARD_KEYS:
                err(f"{label}: a card without a catalog id needs exactly the keys {sorted(NULL_CARD_KEYS)}")
                continue
            if not isinstance(card["name"], str) or not card["name"] or not isinstance(card["note"], str):
                err(f"{label}: name and note must be strings")
            key = ("name", card["name"])
        else:
            if set(card) != CARD_KEYS:
                err(f"{label}: keys {sorted(card)} != {sorted(CARD_KEYS)}")
                continue
            if card["gpu"] not in catalog_ids:
                err(f"{label}: not an id of data/gpus.json")
            key = ("gpu", card["gpu"])
        if key in seen:
            err(f"{label}: listed twice")
        seen.add(key)
        quotes = card["quotes"]
        if not isinstance(quotes, list) or not quotes:
            err(f"{label}: quotes must be a non-empty list")
            continue
        per_gpu = []
        for j, qt in enumerate(quotes):
            where = f"{label} quote {j} ({qt.get('provider', '?')})"
            if set(qt) != QUOTE_KEYS:
                err(f"{where}: keys {sorted(qt)} != {sorted(QUOTE_KEYS)}")
                continue
            for k in ("provider", "offering", "source"):
                if not isinstance(qt[k], str) or not qt[k]:
                    err(f"{where}: {k} must be a non-empty string")
            if "http" not in qt["source"]:
                err(f"{where}: source has no URL")
            if qt["kind"] != "on-demand":
                err(f"{where}: kind must be on-demand")
            if not isinstance(qt["gpus"], int) or isinstance(qt["gpus"], bool) or qt["gpus"] < 1:
                err(f"{where}: gpus must be a positive integer")
                continue
            if not is_number(qt["usd_per_hour"]) or qt["usd_per_hour"] <= 0:
                err(f"{where}: usd_per_hour must be a positive number")
                continue
            if not is_number(qt["usd_per_gpu_hour"]):
                err(f"{where}: usd_per_gpu_hour must be a number")
                continue
            want = cents(Decimal(qt["usd_per_hour"]) / qt["gpus"])
            if Decimal(qt["usd_per_gpu_hour"]) != want:
                err(f"{where}: usd_per_gpu_hour {qt['usd_per_gpu_hour']} != {qt['usd_per_hour']} / {qt['gpus']} = {want}")
            per_gpu.append(Decimal(qt["usd_per_gpu_hour"]))
            date = qt["date"]
            if isinstance(date, str) and DAY.match(date):
                newest_day = max(newest_day, date)
            elif isinstance(date, str) and MONTH.match(date):
                newest_month = max(newest_month, date)
            else:
                err(f"{where}: date must be YYYY-MM or YYYY-MM-DD")
        if per_gpu != sorted(per_gpu):
            err(f"{label}: quotes are not sorted by usd_per_gpu_hour")
        summary = card["usd_per_gpu_hour"]
        if not isinstance(summary, dict) or set(summary) != SUMMARY_KEYS:
            err(f"{label}: usd_per_gpu_hour needs exactly {sorted(SUMMARY_KEYS)}")
            continue
        if len(per_gpu) != len(quotes):
            continue
        want = {"median": median(per_gpu), "min": min(per_gpu), "max": max(per_gpu)}
        for k, v in want.items():
            if not is_number(summary[k]) or Decimal(summary[k]) != v:
                err(f"{label}: {k} {summary[k]} != {v}")
    if newest_day and doc["date"] != newest_day:
        err(f"date {doc['date']} is not the newest quote date {newest_day}")
    if newest_month and newest_month > doc["date"][:7]:
        err(f"a month-only quote date {newest_month} is newer than the file's date")
    return errors


def main():
    quiet = "--quiet" in sys.argv[1:]
    with open(GPUS, encoding="utf-8") as f:
        catalog_ids = {g["id"] for g in json.load(f)["gpus"]}
    with open(PRICES, encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    errors = check(doc, catalog_ids)
    if not quiet and not errors:
        print(f"{'card':<52} {'median':>7} {'min':>7} {'max':>7} {'quotes':>6}  providers")
        for card in doc["cards"]:
            s = card["usd_per_gpu_hour"]
            name = card["gpu"] or f"(not in catalog) {card['name']}"
            providers = len({q["provider"] for q in card["quotes"]})
            print(f"{name[:52]:<52} {s['median']:>7} {s['min']:>7} {s['max']:>7} {len(card['quotes']):>6}  {providers}")
        total = sum(len(c["quotes"]) for c in doc["cards"])
        print(f"{len(doc['cards'])} cards, {total} quotes, date {doc['date']}: arithmetic and ids OK")
    for e in errors:
        print("error:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
