# C types for the compiled build of knowledge.py (Cython reads this file next to
# the .py; setup.py). knowledge.py stays the only source of behaviour and runs
# unchanged as plain Python. Every integer typed here is a seat, a card, a colour
# or a small count; the ``aware`` bitmasks stay Python integers. A local renamed
# in the .py without this file loses its type: slower, not wrong.
cimport cython


# the state's lists stay untyped (any sequence works, as in Python)
@cython.locals(colour=Py_ssize_t, at=Py_ssize_t, alone=bint, same_colour=list, observer=Py_ssize_t, c=Py_ssize_t)
cpdef move_card(state, Py_ssize_t card, Py_ssize_t src, Py_ssize_t dst, bint faces_seen)


@cython.locals(pile_red=Py_ssize_t, pile_blue=Py_ssize_t, n=Py_ssize_t, colour=Py_ssize_t, where=Py_ssize_t,
               place=Py_ssize_t, seat=Py_ssize_t, c=Py_ssize_t)
cpdef located(state, Py_ssize_t observer, pile=*)
