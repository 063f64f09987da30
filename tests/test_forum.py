"""The vote-post grammar (banshe.forum)."""

from __future__ import annotations

import pytest

from banshe.forum import CHANGE_VOTE, VOTE, VoteFormatError, VotePost, parse_vote


@pytest.mark.parametrize(
    "text",
    [
        "投票对象：饺子\n投票理由：饺子好吃",
        "投票对象:饺子\n投票理由:饺子好吃",
        "投票对象：饺子投票理由：饺子好吃",
        "  投票对象 ： 饺子 \n\n投票理由： 饺子好吃 ",
        "投票对象﹕饺子\n投票理由﹕饺子好吃",
    ],
)
def test_vote_format_full_and_half_width(text: str) -> None:
    assert parse_vote(text) == VotePost(VOTE, "饺子", "饺子好吃")


def test_change_vote_and_abstain() -> None:
    assert parse_vote("改票对象：包子\n改票理由：包子也好吃") == VotePost(CHANGE_VOTE, "包子", "包子也好吃")
    assert parse_vote("投票对象：弃权\n投票理由：") == VotePost(VOTE, "弃权", "")


def test_full_width_letters_in_names_are_normalized() -> None:
    vote = parse_vote("投票对象：ＡＢ１\n投票理由：x")
    assert vote is not None and vote.target == "AB1"


def test_plain_posts_are_not_votes() -> None:
    assert parse_vote("今天我觉得饺子很可疑") is None
    assert parse_vote("") is None


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("投票对象 饺子\n投票理由：好吃", "冒号"),
        ("投票对象：饺子", "缺少“投票理由：”"),
        ("投票对象：\n投票理由：好吃", "为空"),
        ("我要投票对象：饺子\n投票理由：好吃", "开头"),
        ("改票对象：包子\n投票理由：好吃", "缺少“改票理由：”"),
        ("投票对象：饺子\n包子\n投票理由：都好吃", "只能填写一名"),
    ],
)
def test_bad_formats_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(VoteFormatError) as err:
        parse_vote(text)
    assert reason in err.value.reason


@pytest.mark.parametrize(
    ("text", "written", "kind"),
    [
        ("投票對象：饺子\n投票理由：饺子好吃", "投票對象", VOTE),
        ("投票对像：饺子\n投票理由：饺子好吃", "投票对像", VOTE),
        ("頭票对象：饺子\n投票理由：饺子好吃", "頭票对象", VOTE),
        ("改票對象：包子\n改票理由：包子也好吃", "改票對象", CHANGE_VOTE),
        ("投票 对象：饺子\n投票理由：饺子好吃", "投票 对象", VOTE),
        ("投票对象：饺子\n投票理由：饺子好吃\n投票理甴", None, VOTE),
    ],
)
def test_near_miss_labels_are_malformed_votes(text: str, written: str | None, kind: str) -> None:
    """Traditional / variant label characters (after NFKC) are refused as votes, never ordinary
    posts, in the service's grammar and in the forum bridge's (a vote block among other lines)."""
    from banshe.forum import parse_post_vote
    from banshe.forum.grammar import vote_kind_mentioned

    if written is None:  # 甴 is not a variant we fold: the vote stands
        assert parse_vote(text) is not None
        return
    for parse in (parse_vote, parse_post_vote):
        with pytest.raises(VoteFormatError) as err:
            parse(text)
        assert f"“{written}”" in err.value.reason
    with pytest.raises(VoteFormatError):
        parse_post_vote("前面的话\n" + text)
    assert vote_kind_mentioned(text) == kind


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("投票对象；饺子\n投票理由：x", "写成了“;”"),
        ("投票对象∶饺子\n投票理由：x", "写成了“∶”"),
        ("投票对象 饺子\n投票理由：x", "后面需要紧跟冒号"),
        ("投票对象：饺子\n投票理由 x", "“投票理由”后面需要紧跟冒号"),
    ],
)
def test_odd_or_missing_colons_say_which(text: str, reason: str) -> None:
    with pytest.raises(VoteFormatError) as err:
        parse_vote(text)
    assert reason in err.value.reason
