"""Reading one thread, by phase: the posts (`posts`, `replies`), then pointers and events
(`pointers`), then settling what the close and the state say (`settle`), then the canonical
(`canonical`). `links.extract.extract_thread` runs the phases in that order."""
