"""How many SQL statements one post and one vote cost (issue 13: fewer statements per write).

Drives a 品茗 game to day 1 through the HTTP API (an in-process TestClient on a fresh SQLite file,
or `--database-url` PostgreSQL), then counts the statements each POST of a plain post and of a
vote issues, with a SQLAlchemy `before_cursor_execute` listener (the 303's page GET not counted).

    .venv/bin/python benchmarks/count_sql.py [--database-url postgresql+psycopg://postgres@127.0.0.1/x]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.service.conftest import FakeClock, make_harness, shanghai  # noqa: E402

IDEM = re.compile(r'name="idem" value="([^"]+)"')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--database-url", default="")
    ap.add_argument("--show", action="store_true", help="print each statement")
    args = ap.parse_args()
    url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'count.sqlite3'}"
    clock = FakeClock(shanghai(2026, 12, 1, 10))
    h = make_harness(url, clock)
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append(" ".join(statement.split())[:110])

    with h.client:
        h.login()
        game = h.create_pinming()
        links = h.links(game)
        clock.now = shanghai(2026, 12, 1, 11)
        assert h.service.fire_due() == 1
        event.listen(h.client.app.state.engine, "before_cursor_execute", count)  # type: ignore[attr-defined]
        results: dict[str, Counter[str]] = {}
        for kind, who, text in (
            ("post", "饺子", "第一帖"),
            ("post", "饺子", "第二帖"),
            ("vote", "包子", "投票对象：汤圆\n投票理由：试试"),
            ("vote", "烧麦", "投票对象：汤圆\n投票理由：跟票"),
        ):
            token = links[who]
            page = h.client.get(f"/p/{token}/thread").text
            csrf = re.search(r'name="csrf-token" content="([^"]+)"', page)
            idem = IDEM.search(page)
            assert csrf is not None and idem is not None
            seen.clear()
            r = h.client.post(
                f"/p/{token}/post",
                data={"csrf": csrf.group(1), "text": text, "idem": idem.group(1)},
                follow_redirects=False,
            )
            assert r.status_code == 303, r.text
            label = f"{kind} ({who})"
            results[label] = Counter(s.split()[0].upper() for s in seen)
            print(f"{label}: {len(seen)} statements  {dict(results[label])}")
            if args.show:
                for s in seen:
                    print("   ", s)
    h.client.app.state.engine.dispose()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
