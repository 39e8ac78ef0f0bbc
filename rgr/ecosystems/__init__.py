"""What rgr knows of each ecosystem, one module each (rgr.ecosystems.python,
.javascript, .bun, .rust, .go, .jvm, .ruby, .php) behind one protocol
(rgr.ecosystems.base.Ecosystem), listed once in rgr.ecosystems.registry: how its tests
are found and run, how their results and failures are read, which of its files decide
how tests run, what the sandbox shows for its tools, and how its failures are explained.
Beside them, the machinery they share: the result model (base), the JUnit XML reader
(junit) and the failure-kind vocabulary (failure_kind).
"""
