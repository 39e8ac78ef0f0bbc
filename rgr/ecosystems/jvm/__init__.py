"""Java: Maven and Gradle (runner), javac's errors (javac_errors) and the direct JUnit 4
run without Maven (direct, with RgrJUnit4Direct.java)."""
