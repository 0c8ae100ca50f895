package io.braidfs.common.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Maps a Kerberos principal ({@code first[/second][@REALM]}) to a user name by Hadoop's
 * auth_to_local rules, so a cluster shared with Hadoop maps principals the same way. Rules are
 * tried in order and the first that applies wins:
 *
 * <ul>
 *   <li>{@code DEFAULT}: a principal of the default realm maps to its first component.
 *   <li>{@code RULE:[n:fmt](regex)s/from/to/g/L}: applies to principals of exactly {@code n}
 *       components; {@code fmt} builds a string from {@code $0} (the realm), {@code $1} and {@code
 *       $2} (the components); the optional {@code (regex)} must match all of it; the optional
 *       {@code s/from/to/} replaces the first match ({@code g}: every match); {@code /L}
 *       lower-cases the result.
 * </ul>
 *
 * As in Hadoop's default mechanism, a principal no rule maps, or a result holding '/' or '@', is
 * refused.
 *
 * <p>Thread-safety: immutable.
 */
public final class KerberosNameMapper {
  private static final Pattern NAME = Pattern.compile("([^/@]+)(/([^/@]+))?(@([^/@]+))?");
  private static final Pattern RULE =
      Pattern.compile(
          "\\s*((DEFAULT)|(RULE:\\[(\\d*):([^\\]]*)](\\(([^)]*)\\))?"
              + "(s/([^/]*)/([^/]*)/(g)?)?))/?(L)?");
  private static final Pattern PARAMETER = Pattern.compile("([^$]*)(\\$(\\d*))?");

  private record Rule(
      boolean isDefault,
      int components,
      String format,
      @Nullable Pattern match,
      @Nullable Pattern from,
      String to,
      boolean global,
      boolean lower) {}

  private final List<Rule> rules;
  private final String defaultRealm;

  private KerberosNameMapper(List<Rule> rules, String defaultRealm) {
    this.rules = List.copyOf(rules);
    this.defaultRealm = defaultRealm;
  }

  /**
   * Parses {@code rules} (whitespace or newlines between them).
   *
   * @throws IllegalArgumentException naming the part that is not a rule
   */
  public static KerberosNameMapper parse(String rules, String defaultRealm) {
    List<Rule> parsed = new ArrayList<>();
    String rest = rules.trim();
    while (!rest.isEmpty()) {
      Matcher m = RULE.matcher(rest);
      if (!m.lookingAt()) {
        throw new IllegalArgumentException("not an auth_to_local rule: '" + rest + "'");
      }
      boolean lower = "L".equals(m.group(12));
      if (m.group(2) != null) {
        parsed.add(new Rule(true, 0, "", null, null, "", false, lower));
      } else {
        parsed.add(
            new Rule(
                false,
                Integer.parseInt(m.group(4)),
                m.group(5),
                m.group(7) == null ? null : Pattern.compile(m.group(7)),
                m.group(9) == null ? null : Pattern.compile(m.group(9)),
                m.group(10) == null ? "" : m.group(10),
                "g".equals(m.group(11)),
                lower));
      }
      rest = rest.substring(m.end()).trim();
    }
    return new KerberosNameMapper(parsed, defaultRealm);
  }

  /**
   * The user name {@code principal} maps to.
   *
   * @throws IllegalArgumentException if it is not a principal, no rule maps it, or the result is
   *     not a plain name
   */
  public String shortName(String principal) {
    Matcher m = NAME.matcher(principal);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a Kerberos principal: '" + principal + "'");
    }
    String first = m.group(1);
    @Nullable String second = m.group(3);
    String realm = m.group(5) == null ? "" : m.group(5);
    String[] params =
        second == null ? new String[] {realm, first} : new String[] {realm, first, second};
    for (Rule r : rules) {
      String result = apply(r, params);
      if (result != null) {
        if (result.contains("/") || result.contains("@")) {
          throw new IllegalArgumentException(
              "auth_to_local maps " + principal + " to '" + result + "', not a user name");
        }
        return result;
      }
    }
    throw new IllegalArgumentException(
        "no auth_to_local rule maps " + principal + " (braid.security.auth-to-local)");
  }

  private @Nullable String apply(Rule r, String[] params) {
    String result;
    if (r.isDefault()) {
      if (!defaultRealm.equals(params[0])) {
        return null;
      }
      result = params[1];
    } else {
      if (params.length - 1 != r.components()) {
        return null;
      }
      String base = substitute(r.format(), params);
      if (base == null || (r.match() != null && !r.match().matcher(base).matches())) {
        return null;
      }
      result = base;
      if (r.from() != null) {
        Matcher m = r.from().matcher(base);
        result = r.global() ? m.replaceAll(r.to()) : m.replaceFirst(r.to());
      }
    }
    return r.lower() ? result.toLowerCase(Locale.ROOT) : result;
  }

  /** {@code $0}, {@code $1}, {@code $2} in {@code format} replaced; null if one is missing. */
  private static @Nullable String substitute(String format, String[] params) {
    StringBuilder out = new StringBuilder();
    Matcher m = PARAMETER.matcher(format);
    int at = 0;
    while (at < format.length() && m.find(at) && m.end() > at) {
      out.append(m.group(1));
      if (m.group(3) != null) {
        if (m.group(3).isEmpty()) {
          return null;
        }
        int i = Integer.parseInt(m.group(3));
        if (i >= params.length) {
          return null;
        }
        out.append(params[i]);
      }
      at = m.end();
    }
    return out.toString();
  }
}
