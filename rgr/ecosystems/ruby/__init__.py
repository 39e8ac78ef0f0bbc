"""Ruby: RSpec (runner)."""
