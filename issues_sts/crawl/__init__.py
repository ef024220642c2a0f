"""crawl stage."""
