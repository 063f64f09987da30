"""`--report`: one self-contained HTML page (tables + charts as embedded PNG images).

The page is the Jinja2 template `templates/report.html` (autoescaped); this module draws the charts
and hands the template the `SimResult.to_json()` dictionary. Needs the `banshe[report]` extra.

Charts use matplotlib (Agg). Chinese labels need a CJK font (Debian: `fonts-wqy-microhei`);
without one the charts fall back to ASCII labels (camp ids) and the page is still written.
"""

from __future__ import annotations

import base64
import io
import warnings
from typing import Any

CJK_FONTS = ["WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans CJK JP", "SimHei", "Microsoft YaHei"]


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    for name in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
        except ValueError:
            continue
        return name
    return None


class _Charts:
    def __init__(self) -> None:
        import matplotlib

        matplotlib.use("Agg", force=True)
        self.font = _cjk_font()
        if self.font:
            matplotlib.rcParams["font.sans-serif"] = [self.font, "DejaVu Sans"]
        matplotlib.rcParams["axes.unicode_minus"] = False

    def label(self, zh: str, ascii_text: str) -> str:
        return zh if self.font else ascii_text

    def png(self, fig: Any) -> str:
        import matplotlib.pyplot as plt

        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # missing glyphs must not stop the report
            fig.tight_layout()
            fig.savefig(buf, format="png", dpi=100)
        plt.close(fig)
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def win_rates(self, summary: dict[str, Any]) -> str:
        import matplotlib.pyplot as plt

        rows = summary["win_rates"]
        fig, ax = plt.subplots(figsize=(6, 3.6))
        names = [self.label(r["name"], r["camp"]) for r in rows]
        rates = [r["rate"] for r in rows]
        lower = [r["rate"] - r["ci95"][0] for r in rows]
        upper = [r["ci95"][1] - r["rate"] for r in rows]
        ax.bar(names, rates, yerr=[lower, upper], capsize=6, color="#4c78a8")
        ax.set_ylim(0, 1)
        ax.set_ylabel(self.label("胜率", "win rate"))
        ax.set_title(self.label("各阵营胜率（95% 置信区间）", "win rate per camp (95% CI)"))
        for i, row in enumerate(rows):
            r = row["rate"]
            if r > 0.15:
                ax.text(i, r / 2, _pct(r), ha="center", color="white")
            else:
                ax.text(i, min(row["ci95"][1] + 0.03, 0.95), _pct(r), ha="center")
        return self.png(fig)

    def by_players(self, counts: list[int], summaries: list[dict[str, Any]]) -> str:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.6))
        camps = [(r["camp"], r["name"]) for r in summaries[0]["win_rates"]] if summaries else []
        for camp, name in camps:
            rates, lo, hi = [], [], []
            for s in summaries:
                row = next(r for r in s["win_rates"] if r["camp"] == camp)
                rates.append(row["rate"])
                lo.append(row["rate"] - row["ci95"][0])
                hi.append(row["ci95"][1] - row["rate"])
            ax.errorbar(counts, rates, yerr=[lo, hi], marker="o", capsize=4, label=self.label(name, camp))
        ax.set_ylim(0, 1)
        ax.set_xlabel(self.label("玩家人数", "players"))
        ax.set_ylabel(self.label("胜率", "win rate"))
        ax.set_xticks(counts)
        ax.set_title(self.label("胜率与玩家人数", "win rate by player count"))
        if camps:
            ax.legend()
        return self.png(fig)

    def days(self, summary: dict[str, Any]) -> str:
        import matplotlib.pyplot as plt

        hist = summary["days"]["histogram"]
        days = [int(d) for d in hist]
        games = summary["games"] or 1
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.bar(days, [hist[str(d)] / games for d in days], color="#f58518")
        ax.set_xlabel(self.label("结束于第几天", "game ended on day"))
        ax.set_ylabel(self.label("对局比例", "share of games"))
        ax.set_xticks(days)
        ax.set_title(self.label("对局长度分布", "game length (days)"))
        return self.png(fig)


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("banshe.sim", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=False,
    )
    env.filters["pct"] = _pct
    env.filters["num"] = lambda x: f"{x:,}"
    return env


def render_report(result: dict[str, Any]) -> str:
    """The HTML page for a `SimResult.to_json()` dictionary (template `sim/templates/report.html`)."""
    charts = _Charts()
    overall = result["overall"]
    counts = [int(n) for n in result["players"]]
    per = [result["by_players"][str(n)]["summary"] for n in counts]
    images = {
        "win_rates": charts.win_rates(overall),
        "by_players": charts.by_players(counts, per),
        "days": charts.days(overall),
    }
    return str(
        _environment()
        .get_template("report.html")
        .render(
            r=result,
            counts=counts,
            per=per,
            sweep=list(zip(counts, per, strict=True)),
            camp_headers=[f"{w['name']}胜率" for w in per[0]["win_rates"]] if per else [],
            charts=images,
            font=charts.font,
            error_samples=[e for s in per for e in s["error_samples"]][:5],
        )
    )


def write_report(result: dict[str, Any], path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_report(result))
