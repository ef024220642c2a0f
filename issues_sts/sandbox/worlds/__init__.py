"""Seeded issue worlds for the fake GitHub (and stores written without HTTP).

generator.py    the deterministic generator of realistic issue worlds (`preset`)
text.py, vocab.py, render.py, dupes.py   texts, word lists, REST rendering, duplicate talk
growth.py       lets a world live on: new issues, duplicates, merges, repositories
paper.py        the paper's 55 repositories at a scale (paper_text.py: modern texts)
rust.py         the rust-lang/rust issue archive as a corpus
"""

from __future__ import annotations

from issues_sts.sandbox.worlds.generator import WorldConfig, generate_world, preset

__all__ = ["WorldConfig", "generate_world", "preset"]
