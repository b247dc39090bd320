"""Decisions per minute on the annotation page: a scripted keyboard session in headless chromium.

Serves a copy of the shipped labels folder (2,769 clusters; the shipped one is never touched), opens the
page and labels N clusters of the to-do queue with the keys a reviewer uses (accept, number keys,
reject, cycling), then waits until every decision is saved in clusters.yaml. Prints decisions per
minute from the first key to the last save, the median time from a key to the next cluster on screen,
and how many of the decisions the file holds. This is the tool's ceiling (the page and the server's
saving), not a person's reading speed.

    python -m benchmarks.bench_annotate [--n 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.server.conftest import chromium_driver, copy_shipped, read_doc
from tests.server.test_page import focused, open_page, press, settled
from uner.models import cpu_has_bf16
from uner.models.resolve import cpu_name
from uner.server import create_app, open_workbench, running

KEYS = ["a", "1", "a", "2", "x", "a", "3", "a", "1", "x"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="clusters to label")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = copy_shipped(Path(tmp) / "labels")
        wb = open_workbench(folder)
        driver = chromium_driver()
        try:
            with running(create_app(wb)) as base:
                open_page(driver, base)
                lags, decided = [], []
                start = time.perf_counter()
                for i in range(args.n):
                    cid = focused(driver)
                    key = KEYS[i % len(KEYS)]
                    if key == "a" and not driver.find_element("id", "accept").is_enabled():
                        key = "1"  # nothing suggested: a number key instead
                    t = time.perf_counter()
                    press(driver, key)
                    while focused(driver) == cid:
                        time.sleep(0.001)
                    lags.append(time.perf_counter() - t)
                    decided.append(cid)
                settled(driver)
                elapsed = time.perf_counter() - start
        finally:
            driver.quit()
        done = {e["id"] for e in read_doc(folder)["clusters"] if e.get("status") in ("confirmed", "rejected")}
    print(f"CPU: {cpu_name()}; {os.cpu_count()} cores; native bf16 {cpu_has_bf16()}; "
          f"load average at start {os.getloadavg()[0]:.1f}")
    print(f"{args.n} decisions by keyboard in {elapsed:.1f} s (first key to last save): "
          f"{60 * args.n / elapsed:.0f} decisions per minute")
    print(f"key -> next cluster on screen: median {1000 * statistics.median(lags):.0f} ms "
          f"(includes the WebDriver round trip); {len(set(decided) & done)} of {args.n} saved in clusters.yaml")


if __name__ == "__main__":
    main()
