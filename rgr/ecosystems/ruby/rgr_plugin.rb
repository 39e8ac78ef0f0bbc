# rgr's Minitest reporter (rgr/ecosystems/ruby/minitest.py): one JSON line per test,
# appended to $RGR_MINITEST_REPORT. rgr copies this file to minitest/rgr_plugin.rb in a
# folder it puts on RUBYLIB, where Minitest's own plugin loader finds it in every Ruby
# process the test command starts (rake's included); without the variable it does nothing.
require "json"

module Minitest
  def self.plugin_rgr_init(_options)
    path = ENV["RGR_MINITEST_REPORT"]
    reporter << RgrReporter.new(path) if path && !path.empty?
  end

  class RgrReporter < AbstractReporter
    def initialize(path)
      super()
      @path = path
    end

    def record(result)
      file, line = result.source_location
      failure = result.failure
      error = failure.is_a?(UnexpectedError) ? failure.error : failure
      status = if result.skipped? then "skipped"
               elsif result.passed? then "passed"
               elsif result.error? then "error"
               else "failed"
               end
      row = { file: File.expand_path(file.to_s), line: line, class: result.klass.to_s, name: result.name.to_s,
              status: status,
              message: error ? "#{error.class}: #{error.message}" : "" }
      File.open(@path, "a") { |out| out.puts(JSON.generate(row)) }
    end
  end
end
