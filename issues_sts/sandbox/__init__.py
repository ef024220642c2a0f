"""The sandbox: stand-ins for the outside world, kept apart from the product.

Nothing in the pipeline (crawl, links, annotations, dataset, hub, retrieval, training) imports
this package. The offline demo, the `fake-github` and `fake-hub` commands, `links evaluate`
(the neovim rounds: `archive_crawl`), the benchmarks and the tests do; the CLI only inside the
commands that need it (tests/test_layering.py):

    github/     the fake GitHub: a real HTTP server on 127.0.0.1 (REST + GraphQL), its rate
                limits, secondary limits, ETags and seeded faults
    worlds/     what it serves: seeded issue worlds (generator.py), their growth, the paper's
                55 repositories at a scale (paper.py), the real archives served (rust.py,
                archive.py)
    corpus.py   RepoData / Corpus: the hand-off between a world and the server
    hub.py      a loopback Hugging Face Hub with branches and tags
    stores.py   crawl stores written directly (no HTTP) and `FixedLinks`, for the build's
                tests and benchmark
"""
