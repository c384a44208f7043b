# C types for the compiled build of observation.py (Cython reads this file next to
# the .py; setup.py). observation.py stays the only source of behaviour and runs
# unchanged as plain Python. The observer becomes an extension type, so that the
# encoder reads its tables from C fields.
cimport cython

# phases, as C constants: comparisons without a module lookup (observation.py imports them from rules.py)
cdef Py_ssize_t BUILD, PLAY, OVER


cdef class AnimalChainObserver:
    cdef public object game, layout, fresh, hand_slots, slots, looks, known_looks, stacked, own_base
    cdef public tuple tables
    cdef public list shown
    cdef public Py_ssize_t hole_at, face_down_at, left_at, right_at, my_double_at, opponent_double_at, height_at, hand_at
    cdef public Py_ssize_t my_hand_size_at, opponent_hand_size_at, deck_size_at, building_phase_at, play_phase_at
    cdef public Py_ssize_t over_phase_at, my_turn_at, seat_0_at, seat_1_at, building_at, passes_at, turn_at
    cdef public Py_ssize_t num_positions, num_types, max_turns, max_swaps, base_size
    cdef public bint per_position

    @cython.locals(view="float[::1]", t=Py_ssize_t, slot=Py_ssize_t, p=Py_ssize_t, j=Py_ssize_t, phase=Py_ssize_t,
                   last_phase=Py_ssize_t, to_move=Py_ssize_t, building=bint, shown=list, hand_slots=list, slots=list,
                   looks=dict, known_looks=dict, stacked=dict, own_base=list, hand=list, last_hand=list, tops=list,
                   last_tops=list, stacks=list, owners=list, last_owners=list, heights=list, last_heights=list,
                   redraw=set, hand_sizes=list)
    cpdef encode(self, state, Py_ssize_t seat)
