"""A module that a test's LazyChalice loads on first use (tests/unit/test_lazy_app.py): it counts its imports."""

from __future__ import annotations

import time
from typing import Any

from chalice import Blueprint

from tests.support import lazy_counts

lazy_counts.imports += 1
time.sleep(0.2)  # a module that takes a while to import: the first requests wait for it, the others run on
bp = Blueprint(__name__)


@bp.route("/things/{thing}", methods=["POST"], content_types=["application/json"])
def make_thing(thing: str) -> dict[str, Any]:
    return {"thing": thing, "body": bp.current_request.json_body}


def tick(event: Any) -> str:
    return f"ticked {type(event).__name__}"
