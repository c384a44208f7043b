# C types for the compiled build of observation.py (Cython reads this file next to
# the .py; setup.py). observation.py stays the only source of behaviour and runs
# unchanged as plain Python. The observer becomes an extension type, so that the
# encoder reads its tables from C fields. Position masks (``positions``, ``bit``,
# ``known``, ``all_positions``) are C 64-bit integers: a board has at most 45
# positions (``data.MAX_BOARD_CARDS``); ``changed`` and ``counts`` also hold the
# hand bits (one per card type, any number) and stay Python integers.
cimport cython

# phases, as C constants: comparisons without a module lookup (observation.py imports them from rules.py)
cdef Py_ssize_t BUILD, PLAY, OVER


cdef class AnimalChainObserver:
    cdef public object game, layout, fresh, hand_slots, slots, looks, known_looks, stacked, own_base_bits
    cdef public tuple tables
    cdef public Py_ssize_t hole_at, face_down_at, left_at, right_at, my_double_at, opponent_double_at, height_at, hand_at
    cdef public Py_ssize_t scalars_at, num_positions, max_turns, max_swaps, passes_at, base_size
    cdef public bint per_position
    cdef public unsigned long long all_positions

    @cython.locals(view="float[::1]", at=Py_ssize_t, t=Py_ssize_t, p=Py_ssize_t, j=Py_ssize_t, phase=Py_ssize_t, to_move=Py_ssize_t,
                   positions="unsigned long long", bit="unsigned long long", known="unsigned long long", slot=Py_ssize_t,
                   index_of_bit=dict, hand_slots=list, slots=list, looks=dict, known_looks=dict, stacked=dict,
                   hand=list, tops=list, stacks=list, owners=list, hand_sizes=list)
    cpdef encode(self, state, Py_ssize_t seat)
