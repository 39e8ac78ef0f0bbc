// rgr's direct run of a Maven project's JUnit 4 test classes, for the mutation gate
// (rgr.ecosystems.jvm.direct): compiles the changed source file alone into a private
// folder that stands first on the class path, then runs the named test classes with
// JUnitCore in this same JVM, and writes their results as JUnit XML.
//
// Started by `java` in source-file mode, inside rgr's sandbox, with the class path
// Surefire reported for the module's tests:
//   java -cp <out>:<test class path> RgrJUnit4Direct.java <out> <report> <source>
//        <test classes, comma-separated> [javac options...]
// Exit codes: 0 every test passed, 1 a test failed (or none ran),
// 3 the source does not compile (nothing ran), 4 a test class was not found.
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

public class RgrJUnit4Direct {
    /** One test's outcome: its status ("passed", "failure", "error", "skipped") and text. */
    static final class Outcome {
        String status = "passed";
        String message = "";
        String detail = "";
    }

    public static void main(String[] args) throws Exception {
        Path out = Paths.get(args[0]);
        Path report = Paths.get(args[1]);
        String source = args[2];
        String[] classes = args[3].split(",");
        List<String> options = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            options.add(args[i]);
        }
        Files.deleteIfExists(report);
        empty(out);
        Path generated = out.resolveSibling(out.getFileName() + "-generated");
        empty(generated);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            System.err.println("rgr-direct: this java has no compiler (a JRE, not a JDK)");
            System.exit(5);
        }
        List<String> javacArgs = new ArrayList<>(List.of(
            "-d", out.toString(), "-s", generated.toString(),
            "-cp", System.getProperty("java.class.path"),
            // only the changed file: every other class comes compiled from the class path
            "-sourcepath", "", "-implicit:none", "-g", "-nowarn", "-Xlint:none"));
        javacArgs.addAll(options);
        javacArgs.add(source);
        int compiled = javac.run(null, null, null, javacArgs.toArray(new String[0]));
        if (compiled != 0) {
            System.err.println("rgr-direct: " + source + " does not compile");
            System.exit(3);
        }

        List<Class<?>> tests = new ArrayList<>();
        ClassLoader loader = ClassLoader.getSystemClassLoader();
        for (String name : classes) {
            try {
                tests.add(Class.forName(name, false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
                System.err.println("rgr-direct: test class " + name + " not found: " + e);
                System.exit(4);
            }
        }

        Map<Description, Outcome> outcomes = new LinkedHashMap<>();
        JUnitCore core = new JUnitCore();
        core.addListener(new RunListener() {
            @Override
            public void testStarted(Description d) {
                outcomes.put(d, new Outcome());
            }

            @Override
            public void testFailure(Failure f) {
                Outcome o = outcomes.computeIfAbsent(f.getDescription(), k -> new Outcome());
                o.status = f.getException() instanceof AssertionError ? "failure" : "error";
                o.message = String.valueOf(f.getMessage());
                o.detail = f.getTrace();
            }

            @Override
            public void testAssumptionFailure(Failure f) {
                Outcome o = outcomes.computeIfAbsent(f.getDescription(), k -> new Outcome());
                o.status = "skipped";
                o.message = String.valueOf(f.getMessage());
            }

            @Override
            public void testIgnored(Description d) {
                Outcome o = outcomes.computeIfAbsent(d, k -> new Outcome());
                o.status = "skipped";
            }
        });
        Result result = core.run(tests.toArray(new Class<?>[0]));
        write(report, outcomes);
        System.out.flush();
        System.err.flush();
        // System.exit: a test may leave threads running that would keep the JVM alive.
        System.exit(result.wasSuccessful() && result.getRunCount() > 0 ? 0 : 1);
    }

    static void empty(Path folder) throws IOException {
        if (Files.isDirectory(folder)) {
            try (Stream<Path> walk = Files.walk(folder)) {
                walk.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(folder))
                    .forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(folder);
    }

    static void write(Path report, Map<Description, Outcome> outcomes) throws IOException {
        StringBuilder xml = new StringBuilder(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"rgr-direct\">\n");
        for (Map.Entry<Description, Outcome> entry : outcomes.entrySet()) {
            Description d = entry.getKey();
            Outcome o = entry.getValue();
            String name = d.getMethodName() != null ? d.getMethodName() : d.getClassName();
            xml.append("  <testcase classname=\"").append(escape(d.getClassName()))
               .append("\" name=\"").append(escape(name)).append('"');
            if (o.status.equals("passed")) {
                xml.append("/>\n");
                continue;
            }
            xml.append(">\n    <").append(o.status).append(" message=\"")
               .append(escape(o.message)).append("\">").append(escape(o.detail))
               .append("</").append(o.status).append(">\n  </testcase>\n");
        }
        xml.append("</testsuite>\n");
        Files.write(report, xml.toString().getBytes(StandardCharsets.UTF_8));
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&': out.append("&amp;"); break;
                case '<': out.append("&lt;"); break;
                case '>': out.append("&gt;"); break;
                case '"': out.append("&quot;"); break;
                default:
                    // XML 1.0 has no place for other control characters
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                        out.append('?');
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.toString();
    }
}
