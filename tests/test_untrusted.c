/*
 * test_untrusted.c — the safe-name rule and the display escape
 * (harness/base/untrusted.h): hostile names are refused, escapes show every byte
 * and never cut an escape in half.
 */
#include "testutil.h"
#include "base/untrusted.h"

#include <string.h>

static void safe_names_are_accepted(void **state)
{
    (void)state;
    static const char *const good[] = {"naive", "linked-list", "gutenberg-en", "a", "Z9",
                                       "v1.2_b+c", "inverted-index", "x0-._+"};
    for (size_t i = 0; i < N(good); i++)
        assert_true(untrusted_name_ok(good[i]));
    char longest[UNTRUSTED_NAME_MAX + 1];
    memset(longest, 'a', UNTRUSTED_NAME_MAX);
    longest[UNTRUSTED_NAME_MAX] = '\0';
    assert_true(untrusted_name_ok(longest));
    assert_true(untrusted_slice_name_ok("gutenberg-en@5M"));
    assert_true(untrusted_slice_name_ok("multilingual@all"));
    assert_true(untrusted_slice_name_ok("tinystories"));
}

static void hostile_names_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "';system \"touch /tmp/P4\";'", "a'b", "a\"b", "`id`", "$(id)", "a;b", "a b",
        "a\nb", "a\tb", "-lead", ".hidden", "_x", "a/b", "../x", "a@b", "a:b", "a\\b",
        "system('id')", "caf\xc3\xa9", "a\x7f", "a#b", "a=b", "a,b", "{a}", "a|b",
    };
    for (size_t i = 0; i < N(bad); i++) {
        assert_false(untrusted_name_ok(bad[i]));
        assert_false(untrusted_slice_name_ok(bad[i]) && strchr(bad[i], '@') == NULL);
    }
    char too_long[UNTRUSTED_NAME_MAX + 2];
    memset(too_long, 'a', UNTRUSTED_NAME_MAX + 1);
    too_long[UNTRUSTED_NAME_MAX + 1] = '\0';
    assert_false(untrusted_name_ok(too_long));
    assert_false(untrusted_slice_name_ok("a@"));
    assert_false(untrusted_slice_name_ok("@5M"));
    assert_false(untrusted_slice_name_ok("a@b@c"));
    assert_false(untrusted_slice_name_ok("a@5M;id"));
}

/* Escapes `in` with a roomy buffer and compares. */
static void assert_escapes_to(const char *in, size_t len, const char *want)
{
    char out[256];
    assert_string_equal(display_escape(in, len, out, sizeof out), want);
}

static void escapes_show_every_byte(void **state)
{
    (void)state;
    assert_escapes_to("plain.txt", 9, "plain.txt");
    assert_escapes_to("caf\xc3\xa9 \xe4\xb8\xad", 9, "caf\xc3\xa9 \xe4\xb8\xad");
    assert_escapes_to("a\nb\rc\td", 7, "a\\nb\\rc\\td");
    assert_escapes_to("\x1b[31mred", 8, "\\x1B[31mred");
    assert_escapes_to("back\\slash", 10, "back\\\\slash");
    assert_escapes_to("bad\xff\xfe", 5, "bad\\xFF\\xFE");
    assert_escapes_to("cut\xe4\xb8", 5, "cut\\xE4\\xB8");
    assert_escapes_to("nul\0x", 5, "nul\\x00x");
    assert_escapes_to("del\x7f", 4, "del\\x7F");
    assert_escapes_to("c1\xc2\x85", 4, "c1\\u{0085}");
    assert_escapes_to("rlo\xe2\x80\xae!", 7, "rlo\\u{202E}!");
    assert_escapes_to("ls\xe2\x80\xa8", 5, "ls\\u{2028}");
    assert_escapes_to("rlm\xe2\x80\x8f", 6, "rlm\\u{200F}");
    assert_escapes_to("alm\xd8\x9c", 5, "alm\\u{061C}");
}

static void a_full_buffer_ends_with_dots_never_inside_an_escape(void **state)
{
    (void)state;
    char out[8];
    assert_string_equal(display_escape("abcdefghij", 10, out, sizeof out), "abcd...");
    assert_string_equal(display_escape("abcdefg", 7, out, sizeof out), "abcdefg");
    assert_string_equal(display_escape("ab\xff\xff", 4, out, sizeof out), "ab...");
    char tiny[4];
    assert_string_equal(display_escape("\n\n", 2, tiny, sizeof tiny), "...");
    for (size_t size = 4; size < 40; size++) {
        char buf[40];
        const char *in = "x\n\xe4\xb8\xad\xff\xc2\x85yz";
        display_escape(in, strlen(in), buf, size);
        assert_true(strlen(buf) < size);
        const char *dots = strstr(buf, "...");
        assert_true(dots == NULL || dots[3] == '\0');
        for (const char *p = buf; *p; p++)
            assert_true((unsigned char)*p >= 0x20); /* no raw control byte ever */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(safe_names_are_accepted),
        cmocka_unit_test(hostile_names_are_refused),
        cmocka_unit_test(escapes_show_every_byte),
        cmocka_unit_test(a_full_buffer_ends_with_dots_never_inside_an_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
