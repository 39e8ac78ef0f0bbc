"""What rgr knows of each language, one sub-package each (python, javascript, go, rust,
jvm, ruby, php), each runner a module there defining ``ECOSYSTEM`` (the protocol in
rgr.ecosystems.base), listed once in rgr.ecosystems.registry: how its tests are found and
run, how their results and failures are read, which of its files decide how tests run,
what the sandbox shows for its tools, and how its failures are explained. Beside them,
the machinery they share: the result model (base), the JUnit XML reader (junit), the
failure-kind vocabulary (failure_kind), sh's globs (sh_glob) and the tests a mutant
faces (test_scope).
"""
