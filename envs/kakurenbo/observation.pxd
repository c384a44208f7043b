# C types for the compiled build of observation.py (Cython reads this file next to
# the .py; setup.py). observation.py stays the only source of behaviour and runs
# unchanged as plain Python. The observer becomes an extension type, so that the
# encoder reads its offsets from C fields, and ``view`` is a typed float32 view of
# the copied template, so every write is a C store. Every integer typed here is an
# offset, a seat, a row, a card, a die or a small count (at most 15), never a score.
# tests/test_compiled.py checks that every name typed here exists in the .py.
cimport cython


cdef class KakurenboObserver:
    cdef public object game, layout, template
    cdef public list rel
    cdef public Py_ssize_t n
    cdef public bint kurayami
    cdef public double inv_max_steps
    cdef public Py_ssize_t phase_at, stage_at, actor_at, turn_at, dice_target_at, red_die_at, blue_die_at
    cdef public Py_ssize_t red_count_at, blue_count_at, counts_row, curse_at, curse_in_pile_at, open_hand_at, scores_at
    cdef public Py_ssize_t discarded_at, discarded_pair, pile_size_at, pile_red_top_at, pile_blue_top_at
    cdef public Py_ssize_t pile_curse_top_at, pile_red_at, pile_blue_at, cards_at, cards_card
    cdef public Py_ssize_t last_kind_at, last_actor_at, last_other_at, last_colour_at, steps_at

    # the state's lists stay untyped (any sequence works, as in Python)
    @cython.locals(view="float[::1]", n=Py_ssize_t, rel=bytes, phase=Py_ssize_t, stage=Py_ssize_t, actor=Py_ssize_t,
                   active=Py_ssize_t, target=Py_ssize_t, red=Py_ssize_t, blue=Py_ssize_t, reds=Py_ssize_t,
                   held_red=Py_ssize_t, counts_row=Py_ssize_t, where=Py_ssize_t, row=Py_ssize_t, holder=Py_ssize_t,
                   pairs_left=Py_ssize_t, at=Py_ssize_t, by=Py_ssize_t, top=Py_ssize_t, pile_red=Py_ssize_t,
                   pile_blue=Py_ssize_t, kind=Py_ssize_t, mover=Py_ssize_t, other=Py_ssize_t, colour=Py_ssize_t,
                   steps_used=double)
    cpdef encode(self, state, Py_ssize_t seat)
