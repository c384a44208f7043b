"""A scripted person at the terminal for ``kakurega play`` tests: answers with the keys of the menu printed."""

from __future__ import annotations

import re


def typist(capsys, first_answers=()):
    """An ``input`` that gives ``first_answers``, then the first key of the last menu printed; keeps all output."""
    printed, answers = [], iter(first_answers)

    def answer(prompt=""):
        printed.append(capsys.readouterr().out)
        for given in answers:
            return given
        menu = "".join(printed).rsplit("Your moves", 1)[1]
        key = re.search(r"^  \[ *(\d+)\]", menu, re.M)
        if key:
            return key.group(1)
        prefix, row, col = re.search(r"^  (.+) \.\.\. \(.*\n +r(\d+): c(\d+)", menu, re.M).groups()
        return f"{prefix} r{row}c{col}"  # squares row by row: the move's words and its first square

    answer.printed = printed
    return answer
