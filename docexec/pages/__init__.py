"""What a page shows: output blocks, figures, drift notes, places, kept HTML."""
