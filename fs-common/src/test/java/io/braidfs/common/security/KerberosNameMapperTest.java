package io.braidfs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The vectors of Hadoop's TestKerberosName, so a cluster shared with Hadoop maps alike. */
class KerberosNameMapperTest {
  private static final String RULES =
      String.join(
          "\n",
          "RULE:[1:$1@$0](.*@YAHOO\\.COM)s/@.*//",
          "RULE:[2:$1](johndoe)s/^.*$/guest/",
          "RULE:[2:$1;$2](^.*;admin$)s/;admin$//",
          "RULE:[2:$2](root)",
          "DEFAULT");

  private final KerberosNameMapper mapper = KerberosNameMapper.parse(RULES, "APACHE.ORG");

  @Test
  void hadoopsVectors() {
    assertThat(mapper.shortName("omalley@APACHE.ORG")).isEqualTo("omalley");
    assertThat(mapper.shortName("hdfs/10.0.0.1@APACHE.ORG")).isEqualTo("hdfs");
    assertThat(mapper.shortName("oom@YAHOO.COM")).isEqualTo("oom");
    assertThat(mapper.shortName("johndoe/zoo@FOO.COM")).isEqualTo("guest");
    assertThat(mapper.shortName("joe/admin@FOO.COM")).isEqualTo("joe");
    assertThat(mapper.shortName("joe/root@FOO.COM")).isEqualTo("root");
  }

  @Test
  void lowerCaseFlag() {
    KerberosNameMapper lower =
        KerberosNameMapper.parse(
            "RULE:[1:$1]/L RULE:[2:$1](Joe)s/Joe/$0/L RULE:[2:$1;$2](^.*;admin$)s/;admin$///L "
                + "RULE:[2:$1;$2](^.*;guest$)s/;guest$//g/L DEFAULT",
            "FOO.COM");
    assertThat(lower.shortName("Joe@FOO.COM")).isEqualTo("joe");
    assertThat(lower.shortName("Joe/root@FOO.COM")).isEqualTo("joe");
    assertThat(lower.shortName("Joe/admin@FOO.COM")).isEqualTo("joe");
    assertThat(lower.shortName("Joe/guestguest@FOO.COM")).isEqualTo("joe");
  }

  @Test
  void aPrincipalNoRuleMapsIsRefused() {
    assertThatThrownBy(() -> mapper.shortName("bob@OTHER.REALM"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no auth_to_local rule maps bob@OTHER.REALM");
    assertThatThrownBy(() -> KerberosNameMapper.parse("DEFAULT", "R").shortName("a/b/c@R"))
        .hasMessageContaining("not a Kerberos principal");
  }

  @Test
  void aResultThatIsNotAUserNameIsRefused() {
    KerberosNameMapper keepsRealm = KerberosNameMapper.parse("RULE:[1:$1@$0]", "R");
    assertThatThrownBy(() -> keepsRealm.shortName("alice@R"))
        .hasMessageContaining("not a user name");
  }

  @Test
  void garbageRulesAreRefusedNamingThePart() {
    assertThatThrownBy(() -> KerberosNameMapper.parse("DEFAULT RULES:[1:$1]", "R"))
        .hasMessageContaining("RULES:[1:$1]");
  }
}
