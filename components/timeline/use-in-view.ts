'use client';

import { useEffect, useRef, useState } from 'react';

/** Whether the element is within `rootMargin` of the viewport (IntersectionObserver). */
export function useInView<T extends Element>(rootMargin = '0px'): [React.RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [inView, setInView] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new IntersectionObserver(([entry]) => setInView(entry?.isIntersecting ?? false), { rootMargin });
    observer.observe(element);
    return () => observer.disconnect();
  }, [rootMargin]);
  return [ref, inView];
}
