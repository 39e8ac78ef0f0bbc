"""The examiner's side of "done means the feature works" (issue 36, item 3).

``interface`` extracts, deterministically, the public interface the run's tests use
(for Python by the AST: the names the tests import and those functions' and classes'
signatures; never a body), which is all an examiner session is shown of the code;
``placing`` names the acceptance file where the project's runner collects it; ``verdict``
reads the acceptance tests' outcomes from a test run and says what is missing in words.
"""
