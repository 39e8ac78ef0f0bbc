"""Ruby: RSpec (runner); its test-file names, the examiner's interface from
require_relative (interface) and its cheat idioms (cheats) on its Language (language)."""
