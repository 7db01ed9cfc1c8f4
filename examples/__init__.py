"""Examples that use Schedlab's public interfaces."""
