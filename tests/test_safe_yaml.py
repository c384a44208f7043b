"""The safe YAML reader reads numbers as YAML's plain forms only: YAML 1.1's base-60 numbers stay strings."""

import pytest
import yaml

from kakurega.envs.core.safe_load import SafeLoadError, load_text


def test_base_60_forms_are_strings_and_every_other_number_is_read_as_pyyaml_reads_it():
    text = "a: 1:2:3\nb: 1_000\nc: 0x1f\nd: 1.5e+3\ne: .inf\nf: -3\ng: 017\nh: 1:30.5\ni: true\nj: 1e3\nk: 3.0\nl: +12"
    data = load_text(text, "x.yaml")
    assert data["a"] == "1:2:3" and data["h"] == "1:30.5"
    plain = yaml.safe_load(text)
    assert yaml.safe_load("a: 1:2:3")["a"] == 3723  # the control: YAML 1.1 reads it as a number
    assert {k: v for k, v in data.items() if k not in "ah"} == {k: v for k, v in plain.items() if k not in "ah"}


def test_a_long_base_60_value_is_a_string_at_once():
    # PyYAML raised OverflowError (a traceback through every reader) on the float form, and worked on the
    # integer form in time quadratic in its length
    value = ":".join(["1"] * 400)
    assert load_text(f"a: {value}.5\nb: {value}", "x.yaml") == {"a": f"{value}.5", "b": value}
    with pytest.raises(OverflowError):
        yaml.safe_load(f"a: {value}.5")  # the control


def test_what_does_overflow_is_refused_in_words():
    with pytest.raises(SafeLoadError, match="cannot be read"):
        load_text("a: !!float " + ":".join(["1"] * 400) + ".5", "x.yaml")


def test_printable_names_may_hold_spaces_of_any_script_but_no_control_characters():
    from kakurega.envs.core.safe_load import check_printable

    assert check_printable("鬼　ごっこ", "map.yaml", "field 'name'") == "鬼　ごっこ"  # a full-width space
    for bad in ("a\x1b[2Jb", "two\nlines", "tab\there", "zero\u200dwidth"):
        with pytest.raises(SafeLoadError, match="expected printable text"):
            check_printable(bad, "map.yaml", "field 'name'")
