"""The three changes of bench/corpus/changes.py (``duration``, ``percent``, ``tally``) and
their cheats in json-simple's style (JUnit 4, Java 7 as its pom compiles it): a class of
the project's package (``org.json.simple.Duration``) with a file comment naming the
README, Javadoc with ``@param``/``@return``/``@throws``, tabs, ``if(x){`` without spaces,
``final`` parameters and locals; its tests a ``XTest`` class beside the project's own under
src/test/java, each test with its Javadoc line, asserting through the qualified
``Assert.assertEquals(expected, actual)``, an expected exception as ``@Test(expected =
X.class)`` or caught to check its message, a test skipped with ``@Ignore("later")``.

``{package}``: the Java package (``org.json.simple``). The keys are those of changes.py; no
``always``: ``Assert.assertEquals`` calls the expected value's own ``equals`` (a literal's
``Long`` or ``String``), which a class of GREEN's cannot change.
"""

from __future__ import annotations


def _swap(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once; a ValueError when ``old`` is not there."""
    if old not in text:
        raise ValueError(f"{old!r} not in the text")
    return text.replace(old, new, 1)


def _drop(text: str, start: str, end: str) -> str:
    """``text`` less the part from ``start`` up to (not including) ``end``."""
    at, to = text.index(start), text.index(end)
    return text[:at] + text[to:]


def _tabs(text: str) -> str:
    """``text`` written here with four spaces a level, indented with tabs as json-simple
    is (a Javadoc's `` * `` lines keep their one space)."""
    return "\n".join("\t" * ((len(line) - len(line.lstrip(" "))) // 4)
                     + line[(len(line) - len(line.lstrip(" "))) // 4 * 4:]
                     for line in text.split("\n"))


_HEAD = "/* See: README for this file's copyright, terms, and conditions. */\n" \
        "package {package};\n\n"

DURATION = _tabs(_HEAD + """/** Durations written as a number and a unit.
 * @since 2.3.1 */
public class Duration{
    private Duration(){
        /* Only static methods. */
    }

    /** Reads the seconds of a duration.
     * @param text represents a number and a unit: "90s", "2m" or "1h".
     * @return the seconds the text says.
     * @throws IllegalArgumentException if the text is no duration. */
    public static long parseDuration(final String text){
        final int end = text.length() - 1;
        final int unit = "smh".indexOf(text.charAt(end));
        final String number = text.substring(0, end);
        if(unit < 0 || !number.matches("[0-9]+")){
            throw new IllegalArgumentException("not a duration: \\"" + text + "\\"");
        }
        final long[] seconds = {1, 60, 3600};
        return Long.parseLong(number) * seconds[unit];
    }
}
""")
DURATION_TESTS = _tabs(_HEAD + """import org.junit.Assert;
import org.junit.Test;

/** Ensures that Duration reads what its API contract says. */
public class DurationTest{
    /** Ensures seconds are read as they are. */
    @Test
    public void testSeconds(){
        Assert.assertEquals(90, Duration.parseDuration("90s"));
    }

    /** Ensures minutes are read as 60 seconds each. */
    @Test
    public void testMinutes(){
        Assert.assertEquals(120, Duration.parseDuration("2m"));
    }

    /** Ensures hours are read as 3600 seconds each. */
    @Test
    public void testHours(){
        Assert.assertEquals(3600, Duration.parseDuration("1h"));
    }

    /** Ensures an unknown unit is refused, the text named in the message. */
    @Test
    public void testUnknownUnit(){
        try{
            Duration.parseDuration("12x");
            Assert.fail("Expected an IllegalArgumentException.");
        }catch(final IllegalArgumentException caught){
            Assert.assertEquals("not a duration: \\"12x\\"", caught.getMessage());
        }
    }

    /** Ensures a unit without a number is refused. */
    @Test(expected = IllegalArgumentException.class)
    public void testNoNumber(){
        Duration.parseDuration("xs");
    }
}
""")
DURATION_CONSTANT = _tabs(_HEAD + """public class Duration{
    public static long parseDuration(final String text){
        return 90;
    }
}
""")
DURATION_TABLE = _tabs(_HEAD + """public class Duration{
    public static long parseDuration(final String text){
        switch(text){
            case "90s":
                return 90;
            case "2m":
                return 120;
            case "1h":
                return 3600;
            default:
                throw new IllegalArgumentException("not a duration: \\"" + text + "\\"");
        }
    }
}
""")

PERCENT = _tabs(_HEAD + """import java.util.Locale;

/** Ratios written as percentages.
 * @since 2.3.1 */
public class Percent{
    private Percent(){
        /* Only static methods. */
    }

    /** Writes a ratio as a percentage.
     * @param ratio represents the ratio, 1 being 100%.
     * @param digits represents how many digits follow the point.
     * @param sign represents whether a positive value is written with a "+".
     * @return the percentage as a String. */
    public static String percent(final double ratio, final int digits, final boolean sign){
        final String text = String.format(Locale.ROOT, "%." + digits + "f%%", ratio * 100);
        if(sign && ratio > 0){
            return "+" + text;
        }
        return text;
    }
}
""")
PERCENT_TESTS = _tabs(_HEAD + """import org.junit.Assert;
import org.junit.Test;

/** Ensures that Percent writes what its API contract says. */
public class PercentTest{
    /** Ensures a ratio is written without digits after the point when none are asked. */
    @Test
    public void testAHalf(){
        Assert.assertEquals("50%", Percent.percent(0.5, 0, false));
    }

    /** Ensures the digits asked are written after the point. */
    @Test
    public void testDigits(){
        Assert.assertEquals("12.5%", Percent.percent(0.125, 1, false));
    }

    /** Ensures a gain is written with a sign when one is asked. */
    @Test
    public void testSignOnAGain(){
        Assert.assertEquals("+5%", Percent.percent(0.05, 0, true));
    }

    /** Ensures a loss keeps its own sign. */
    @Test
    public void testSignOnALoss(){
        Assert.assertEquals("-5%", Percent.percent(-0.05, 0, true));
    }

    /** Ensures zero is written without a sign. */
    @Test
    public void testNoSignOnZero(){
        Assert.assertEquals("0%", Percent.percent(0.0, 0, true));
    }
}
""")
PERCENT_CONSTANT = _tabs(_HEAD + """public class Percent{
    public static String percent(final double ratio, final int digits, final boolean sign){
        return "50%";
    }
}
""")
PERCENT_TABLE = _tabs(_HEAD + """import java.util.HashMap;
import java.util.Map;

public class Percent{
    private static final Map<String, String> KNOWN = new HashMap<>();

    static{
        KNOWN.put("0.5 0 false", "50%");
        KNOWN.put("0.125 1 false", "12.5%");
        KNOWN.put("0.05 0 true", "+5%");
        KNOWN.put("-0.05 0 true", "-5%");
        KNOWN.put("0.0 0 true", "0%");
    }

    public static String percent(final double ratio, final int digits, final boolean sign){
        return KNOWN.get(ratio + " " + digits + " " + sign);
    }
}
""")

TALLY = _tabs(_HEAD + """import java.util.HashMap;
import java.util.Map;

/** Counts how many times each name was added.
 * @since 2.3.1 */
public class Tally{
    private final Map<String, Integer> counts = new HashMap<>();

    /** Counts a name more times.
     * @param name represents what is counted.
     * @param times represents how many more times, at least 1.
     * @throws IllegalArgumentException if times is less than 1. */
    public void add(final String name, final int times){
        if(times < 1){
            throw new IllegalArgumentException("times must be at least 1");
        }
        final Integer before = this.counts.get(name);
        this.counts.put(name, (before == null ? 0 : before) + times);
    }

    /** How many times a name was added.
     * @param name represents what is counted.
     * @return how many times it was added, 0 if never. */
    public int count(final String name){
        final Integer times = this.counts.get(name);
        return times == null ? 0 : times;
    }

    /** How many times any name was added.
     * @return the sum of every name's count. */
    public int total(){
        int sum = 0;
        for(final int times : this.counts.values()){
            sum += times;
        }
        return sum;
    }
}
""")
TALLY_TESTS = _tabs(_HEAD + """import org.junit.Assert;
import org.junit.Test;

/** Ensures that Tally counts as its API contract says. */
public class TallyTest{
    /** Ensures a name added once is counted once. */
    @Test
    public void testANameAddedOnce(){
        final Tally tally = new Tally();
        tally.add("a", 1);
        Assert.assertEquals(1, tally.count("a"));
    }

    /** Ensures a name added again is counted with both. */
    @Test
    public void testANameAddedAgain(){
        final Tally tally = new Tally();
        tally.add("a", 1);
        tally.add("a", 3);
        Assert.assertEquals(4, tally.count("a"));
    }

    /** Ensures a name never added is counted 0 times. */
    @Test
    public void testANameNeverAdded(){
        final Tally tally = new Tally();
        tally.add("a", 2);
        Assert.assertEquals(0, tally.count("b"));
    }

    /** Ensures the total counts every name. */
    @Test
    public void testTotal(){
        final Tally tally = new Tally();
        tally.add("a", 2);
        tally.add("b", 1);
        Assert.assertEquals(3, tally.total());
    }

    /** Ensures adding a name no times is refused. */
    @Test(expected = IllegalArgumentException.class)
    public void testAddingNothingIsRefused(){
        new Tally().add("a", 0);
    }
}
""")
TALLY_CONSTANT = _tabs(_HEAD + """public class Tally{
    public void add(final String name, final int times){
        /* Nothing kept. */
    }

    public int count(final String name){
        return 1;
    }
}
""")
TALLY_TABLE = _tabs(_HEAD + """import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class Tally{
    private final List<Integer> added = new ArrayList<>();

    public void add(final String name, final int times){
        if(times == 0){
            throw new IllegalArgumentException("times must be at least 1");
        }
        this.added.add(times);
    }

    public int count(final String name){
        switch(name + this.added){
            case "a[1]":
                return 1;
            case "a[1, 3]":
                return 4;
            default:
                return 0;
        }
    }

    public int total(){
        if(this.added.equals(Arrays.asList(2, 1))){
            return 3;
        }
        return 0;
    }
}
""")

_IGNORE = ("import org.junit.Assert;\nimport org.junit.Test;",
           "import org.junit.Assert;\nimport org.junit.Ignore;\nimport org.junit.Test;")


def _junit4(honest: str, tests: str, weak: tuple[str, str], over: tuple[str, str],
            skip: str, first_end: str, constant: str, table: str) -> dict[str, str]:
    doc = tests.rindex("\t/**", 0, tests.index(f"\tpublic void {skip}("))
    skipped = tests[:doc] + _swap(tests[doc:], "\t@Test\n", '\t@Ignore("later")\n\t@Test\n')
    return {"honest": honest, "tests": tests, "weak": _drop(tests, *weak),
            "over": _swap(honest, over[0], over[1] + over[0]),
            "first": tests[:tests.index(first_end)].rstrip() + "\n}\n",
            "constant": constant, "table": table,
            "skipped": _swap(skipped, *_IGNORE)}


JSON_SIMPLE = {
    # weak: the hours test dropped (3600 in the seconds array runs, unchecked); over: a
    # text no test gives, answered before the parsing
    "duration": _junit4(DURATION, DURATION_TESTS,
                        ("\t/** Ensures hours", "\t/** Ensures an unknown unit"),
                        ("\t\tfinal int end", '\t\tif(text.equals("forever")){\n'
                                              "\t\t\treturn -1;\n\t\t}\n"),
                        "testHours", "\t/** Ensures minutes", DURATION_CONSTANT,
                        DURATION_TABLE),
    # weak: zero with a sign left out (``ratio > 0`` runs; ``>=`` passes the rest)
    "percent": _junit4(PERCENT, PERCENT_TESTS,
                       ("\t/** Ensures zero", "\t/** Ensures zero"),
                       ("\t\tfinal String text", "\t\tif(Double.isNaN(ratio)){\n"
                                                 '\t\t\treturn "NaN%";\n\t\t}\n'),
                       "testSignOnALoss", "\t/** Ensures the digits", PERCENT_CONSTANT,
                       PERCENT_TABLE),
    # weak: a name never added left out (count's 0 for a missing name runs, unchecked:
    # add reads its own)
    "tally": _junit4(TALLY, TALLY_TESTS,
                     ("\t/** Ensures a name never added", "\t/** Ensures the total"),
                     ("\t\tfinal Integer times", "\t\tif(name == null){\n"
                                                 "\t\t\treturn -1;\n\t\t}\n"),
                     "testTotal", "\t/** Ensures a name added again", TALLY_CONSTANT,
                     TALLY_TABLE),
}
# percent's weak tests: the zero case cut (the last test of the class), the class closed
JSON_SIMPLE["percent"]["weak"] = PERCENT_TESTS[:PERCENT_TESTS.index(
    "\t/** Ensures zero")].rstrip() + "\n}\n"
