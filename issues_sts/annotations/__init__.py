"""The link stage measured: the annotated threads and the real archives they come from.

    archives    the real issue archives (../shared/data) as crawl stores: `load_archive(name)`,
                the one loader, and `archive_lines`, the one reader of an archive's files
    labels      the annotation files in data/annotations/ and their DEV/TEST halves
    evaluate    precision and recall of `issues_sts.links.build_links` on them

A room above the link stage and the crawler's rows (the archives are loaded as a crawl would
store them) and below the CLI (`issues-sts links evaluate`, `links extract --archive`). No
stage imports it, and it does not import the sandbox: the neovim archive, measured as the
fake GitHub serves it, is loaded by a loader the caller passes in.
"""
