"""Real open-source projects built as their users have them, for measuring rgr against
each project's own test command (issues 34 and 35).

``fetch``: one fetcher per source (PyPI sdist, npm tarball, Debian's Go and Rust source
packages), each cached under a folder keyed by name and version (``cache``);
``build``: a fetched source made into a user's checkout under a given HOME (git
repository with the project's own .gitignore, its dependencies installed the way its
contributors install them); ``projects``: the corpus itself."""
