"""The forum bridge: the vote-post grammar, a Discuz! thread reader and the day's count.

`banshe.forum.grammar` is pure (no web); `banshe.forum.discuz` reads saved or live Discuz! X
pages; `banshe.forum.count` counts a day of a thread by the rules (`banshe forum count`).
"""

from .grammar import CHANGE_VOTE, VOTE, VoteFormatError, VotePost, normalize, parse_post_vote, parse_vote

__all__ = ["VOTE", "CHANGE_VOTE", "VoteFormatError", "VotePost", "normalize", "parse_vote", "parse_post_vote"]
