import os
import sys

# the shared conformance helpers live beside the tests
sys.path.insert(0, os.path.dirname(__file__))
