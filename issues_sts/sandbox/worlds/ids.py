"""Ids as GitHub hands them out: one counter per kind of object, growing with time.

GitHub numbers every comment (and every timeline event) from one global sequence, so an id
says roughly when its object was made. Comment ids passed 2^31 in early 2024 and timeline
event ids in late 2018: GraphQL's 32-bit `databaseId` cannot carry them (`fullDatabaseId`,
a BigInt, can). The anchors below are the median ids per half-year measured in the real issue
archives the project was developed on (`python -m benchmarks.calibration` prints the real
and the generated ranges side by side); between anchors ids grow linearly, past the last one
at its slope.

A generated world hands out `anchor(t)` rounded to a bin of `SLOTS` ids plus the repository's
slot: ids are unique across repositories without a shared counter, and grow with time within
each repository (a comment whose bin was taken gets the next free one).
"""

from __future__ import annotations

import bisect
import calendar
import time
from dataclasses import dataclass, field

SLOTS = 128  # repositories per world that can share an id range without colliding

# (time, median id) per half-year: issue comments of rust-lang/rust, microsoft/onnxruntime and
# neovim (2010-2026).
COMMENT_ANCHORS: tuple[tuple[str, int], ...] = (
    ("2010-01-01T00:00:00Z", 290_000),
    ("2011-01-01T00:00:00Z", 1_160_000),
    ("2012-01-01T00:00:00Z", 4_580_000),
    ("2013-01-01T00:00:00Z", 17_230_000),
    ("2014-01-01T00:00:00Z", 37_780_000),
    ("2015-01-01T00:00:00Z", 85_780_000),
    ("2016-01-01T00:00:00Z", 184_620_000),
    ("2017-01-01T00:00:00Z", 290_290_000),
    ("2018-01-01T00:00:00Z", 377_650_000),
    ("2019-01-01T00:00:00Z", 484_190_000),
    ("2020-01-01T00:00:00Z", 610_150_000),
    ("2021-01-01T00:00:00Z", 813_350_000),
    ("2022-01-01T00:00:00Z", 1_100_580_000),
    ("2023-01-01T00:00:00Z", 1_492_380_000),
    ("2024-01-01T00:00:00Z", 2_030_070_000),
    ("2024-07-01T00:00:00Z", 2_390_840_000),
    ("2025-01-01T00:00:00Z", 2_779_400_000),
    ("2025-07-01T00:00:00Z", 3_363_380_000),
    ("2026-01-01T00:00:00Z", 4_224_680_000),
)
# Timeline events (closed, labeled, marked_as_duplicate...) of microsoft/onnxruntime, 2018-2023;
# earlier years extrapolated back at the 2018-2019 slope.
EVENT_ANCHORS: tuple[tuple[str, int], ...] = (
    ("2016-07-01T00:00:00Z", 1_000_000_000),
    ("2018-07-01T00:00:00Z", 2_009_180_000),
    ("2019-01-01T00:00:00Z", 2_230_930_000),
    ("2019-07-01T00:00:00Z", 2_588_200_000),
    ("2020-01-01T00:00:00Z", 3_093_330_000),
    ("2020-07-01T00:00:00Z", 3_654_620_000),
    ("2021-01-01T00:00:00Z", 4_411_950_000),
    ("2021-07-01T00:00:00Z", 5_210_790_000),
    ("2022-01-01T00:00:00Z", 6_211_700_000),
    ("2022-07-01T00:00:00Z", 7_177_460_000),
    ("2023-01-01T00:00:00Z", 8_839_270_000),
    ("2023-07-01T00:00:00Z", 9_883_580_000),
)
# Issues and pull requests (one sequence), the median per year of the three archives (neovim
# 2016-2026); they passed 2^31 in early 2024, a little before comments.
ISSUE_ANCHORS: tuple[tuple[str, int], ...] = (
    ("2010-07-01T00:00:00Z", 256_761),
    ("2011-01-01T00:00:00Z", 542_143),
    ("2012-01-01T00:00:00Z", 2_892_482),
    ("2013-01-01T00:00:00Z", 10_047_830),
    ("2014-01-01T00:00:00Z", 25_767_462),
    ("2015-01-01T00:00:00Z", 54_229_354),
    ("2016-01-01T00:00:00Z", 128_373_143),
    ("2017-01-01T00:00:00Z", 200_785_718),
    ("2018-01-01T00:00:00Z", 290_273_417),
    ("2019-01-01T00:00:00Z", 400_418_242),
    ("2020-01-01T00:00:00Z", 551_272_257),
    ("2021-01-01T00:00:00Z", 788_998_785),
    ("2022-01-01T00:00:00Z", 1_105_075_430),
    ("2023-01-01T00:00:00Z", 1_534_524_996),
    ("2024-01-01T00:00:00Z", 2_085_978_124),
    ("2025-01-01T00:00:00Z", 2_791_339_397),
    ("2026-01-01T00:00:00Z", 3_826_521_274),
    ("2026-07-01T00:00:00Z", 4_917_012_914),
)


def stamp(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")))


@dataclass(frozen=True)
class IdCurve:
    """Piecewise-linear id over time through (time, id) anchors."""

    times: tuple[float, ...]
    ids: tuple[int, ...]

    @classmethod
    def of(cls, anchors: tuple[tuple[str, int], ...]) -> IdCurve:
        return cls(tuple(stamp(t) for t, _ in anchors), tuple(i for _, i in anchors))

    def at(self, t: float) -> int:
        k = bisect.bisect_right(self.times, t)
        lo = min(max(k - 1, 0), len(self.times) - 2)
        t0, t1, i0, i1 = self.times[lo], self.times[lo + 1], self.ids[lo], self.ids[lo + 1]
        return max(1, round(i0 + (i1 - i0) * (t - t0) / (t1 - t0)))


COMMENTS = IdCurve.of(COMMENT_ANCHORS)
EVENTS = IdCurve.of(EVENT_ANCHORS)
ISSUES = IdCurve.of(ISSUE_ANCHORS)


@dataclass
class IdClock:
    """Hands out comment and event ids for the repositories of one world (each its own slot)."""

    last_bin: dict[tuple[str, int], int] = field(default_factory=dict)

    def issue(self, t: float, slot: int) -> int:
        return self._next("issue", ISSUES, t, slot)

    def comment(self, t: float, slot: int) -> int:
        return self._next("comment", COMMENTS, t, slot)

    def event(self, t: float, slot: int) -> int:
        return self._next("event", EVENTS, t, slot)

    def _next(self, kind: str, curve: IdCurve, t: float, slot: int) -> int:
        key = (kind, slot % SLOTS)
        wanted = curve.at(t) // SLOTS
        taken = self.last_bin.get(key)
        chosen = wanted if taken is None or wanted > taken else taken + 1
        self.last_bin[key] = chosen
        return chosen * SLOTS + key[1]

    def reserve(self, kind: str, slot: int, used_id: int) -> None:
        """Note an id already in the world (a grown world continues after it)."""
        key = (kind, slot % SLOTS)
        self.last_bin[key] = max(self.last_bin.get(key, 0), used_id // SLOTS)
