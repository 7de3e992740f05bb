"""The environment every benchmark runs in: moto in process (no endpoint, dummy credentials), stage `bench`.

Import it before any project module: settings are read once per process.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def use(**extra: str) -> None:
    sys.path.insert(0, str(ROOT))
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1",
            "DOMPET_STAGE": "bench",
            "DOMPET_LOG_LEVEL": "WARNING",
            **extra,
        }
    )
    # moto as the tests and the local stack run it (devtools/moto_patches.py): KMS signs digests as AWS does, a
    # transaction backs up the items it names, not whole tables, and a receive does not walk the queue once per
    # message (moto's copying and walking would dominate the timings).
    from devtools import moto_patches

    moto_patches.kms_signs_digests()
    moto_patches.dynamodb_transactions_back_up_items()
    moto_patches.in_process_requests_are_serialised()  # concurrent workers (a batch's deliveries) share moto
    moto_patches.sqs_receives_without_rereading_the_queue()


def moto_queues_keep_nothing(names: set[str]) -> None:
    """moto's SendMessage reads every queue attribute, walking every message of the queue: its cost grows with the
    queue, SQS's does not. For queues nothing consumes in a benchmark (the benchmark calls the worker itself), keep
    no message: each SendMessage costs what it costs on an empty queue."""
    from moto.sqs.models import Queue

    add = Queue.add_message

    def add_message(self: Any, message: Any) -> None:
        if self.name not in names:
            add(self, message)

    Queue.add_message = add_message  # type: ignore[method-assign]


def use_networks(bench: str, entries: list[dict[str, Any]]) -> None:
    """The networks registry a benchmark runs against (`.local/bench-<bench>-networks.json`), read from the next
    load of the settings and the registry on."""
    registry = ROOT / ".local" / f"bench-{bench}-networks.json"
    registry.parent.mkdir(exist_ok=True)
    registry.write_text(json.dumps({"networks": entries}))
    os.environ["DOMPET_NETWORKS_FILE"] = str(registry)
