;;; complex-edit-review.el --- Keep or drop proposed changes one by one  -*- lexical-binding: t; -*-

;;; Commentary:

;; `complex-edit-review' asks the server for hunks (`review: true'; an editor without change
;; annotations gets them with nothing applied).  Each hunk is shown in the buffer: the old text
;; highlighted, the new text after it.  The buffer is read-only while the review lasts; the keys
;; are y (keep), n (drop), a (keep this and the rest), d (drop this and the rest), RET (apply
;; the kept ones now), q (quit, apply nothing), TAB / S-TAB (next / previous).  Once every hunk
;; is decided, the ids of the kept ones go back to the server (`complexEdit.applyReview' with
;; the answer's proposalId), which lands exactly those as one undo step, rebased over what was
;; typed meanwhile, or answers `document_changed' with nothing applied.
;; An edit across files (`C-u M-x complex-edit-review', `complex-edit-review-across-files')
;; is reviewed file by file: the command's buffer first, then each other file the change
;; touches (visited for its turn); the kept ones of every file go back together, and the
;; final message says what landed in which file and what was dropped.

;;; Code:

(require 'cl-lib)
(require 'complex-edit)

(cl-defstruct (complex-edit--hunk (:constructor complex-edit--hunk-create))
  id overlay old new label decision)

(defvar-local complex-edit--review nil
  "The review shown in this buffer: one file's part of it, a plist.
\(:uri :name :raw :buffer :hunks :index :read-only :session); the :session
\(:answer :backend :origin :uri :groups) is shared by every file's part.")

(defvar complex-edit-review-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "y") #'complex-edit-review-keep)
    (define-key map (kbd "n") #'complex-edit-review-drop)
    (define-key map (kbd "a") #'complex-edit-review-keep-rest)
    (define-key map (kbd "d") #'complex-edit-review-drop-rest)
    (define-key map (kbd "RET") #'complex-edit-review-apply)
    (define-key map (kbd "q") #'complex-edit-review-quit)
    (define-key map (kbd "C-g") #'complex-edit-review-quit)
    (define-key map (kbd "TAB") #'complex-edit-review-next)
    (define-key map (kbd "<backtab>") #'complex-edit-review-previous)
    map)
  "Keys of a review.")

(define-minor-mode complex-edit-review-mode
  "Deciding which proposed changes to keep.
\\{complex-edit-review-mode-map}"
  :lighter " Review")

(defun complex-edit-review--region (hunk backend)
  "The (START . END) of the proposed HUNK in the buffer.
Nil when its old text is not there."
  (let* ((range (plist-get hunk :range))
         (to-point (plist-get backend :to-point))
         (start (funcall to-point (plist-get range :start)))
         (end (funcall to-point (plist-get range :end))))
    (when (equal (buffer-substring-no-properties start end) (plist-get hunk :oldText))
      (cons start end))))

(defun complex-edit-review--uri-hunks (answer uri)
  "ANSWER's hunks grouped by document: ((URI . HUNKS) ...), URI's own first.
A hunk without :uri is URI's; each has its :id (its index when the server gave
none)."
  (let ((index -1) groups)
    (mapc (lambda (hunk)
            (setq index (1+ index))
            (let* ((hunk (if (plist-get hunk :id) hunk
                           (plist-put (copy-sequence hunk) :id index)))
                   (key (or (plist-get hunk :uri) uri))
                   (group (assoc key groups)))
              (if group
                  (setcdr group (append (cdr group) (list hunk)))
                (push (cons key (list hunk)) groups))))
          (plist-get answer :hunks))
    (setq groups (nreverse groups))
    (let ((own (assoc uri groups)))
      (if own (cons own (delq own groups)) groups))))

(defun complex-edit-review--place (raw backend)
  "The hunks RAW placed in the current buffer as overlays, or nil when the buffer
no longer holds their old text where they point.  BACKEND reads positions."
  (let ((regions (mapcar (lambda (hunk) (complex-edit-review--region hunk backend)) raw)))
    ;; The ranges are in the coordinates of the answer's version (or of the file on disk):
    ;; each must still find its old text exactly where it points.
    (unless (memq nil regions)
      (cl-mapcar
       (lambda (hunk region)
         (let ((overlay (make-overlay (car region) (cdr region) nil nil nil))
               (new (plist-get hunk :newText)))
           (overlay-put overlay 'face 'complex-edit-review-old)
           (overlay-put overlay 'after-string (propertize new 'face 'complex-edit-review-new))
           (overlay-put overlay 'complex-edit-review t)
           (complex-edit--hunk-create :id (plist-get hunk :id) :overlay overlay
                                      :old (plist-get hunk :oldText) :new new
                                      :label (plist-get hunk :label))))
       raw regions))))

(defun complex-edit-review-start (answer backend)
  "Review the hunks of ANSWER, the current buffer's first, then each other file's.
BACKEND reads their positions.  A file the edit changes that is not visited is
visited for its turn."
  (let* ((origin (current-buffer))
         (groups (complex-edit-review--uri-hunks answer (funcall (plist-get backend :uri))))
         (session (list :answer answer :backend backend :origin origin :groups nil
                        :uri (funcall (plist-get backend :uri)))))
    (plist-put session :groups
               (mapcar (lambda (group)
                         (list :uri (car group) :raw (cdr group) :session session
                               :name (file-name-nondirectory
                                      (complex-edit--uri-file (car group)))))
                       groups))
    (if (null groups)
        (complex-edit-report
         origin (complex-edit-with answer :applied :json-false :hunks nil
                                   :message "no change proposed; nothing was applied"))
      (complex-edit-review--open session (car (plist-get session :groups))))))

(defun complex-edit-review--group-buffer (group)
  "The buffer of GROUP's document: the origin for its own, else visited if need be."
  (let ((origin (plist-get (plist-get group :session) :origin)))
    (if (equal (plist-get group :uri) (plist-get (plist-get group :session) :uri))
        origin
      (find-file-noselect (complex-edit--uri-file (plist-get group :uri))))))

(defun complex-edit-review--open (session group)
  "Show GROUP of SESSION for review in its buffer; or refuse the whole review."
  (let ((buffer (complex-edit-review--group-buffer group)))
    (unless (eq buffer (current-buffer))
      (switch-to-buffer buffer))
    (let ((hunks (complex-edit-review--place (plist-get group :raw)
                                             (plist-get session :backend))))
      (if (null hunks)
          (progn
            (complex-edit-review--end-all session)
            (complex-edit-report
             (plist-get session :origin)
             (complex-edit-with (plist-get session :answer)
                                :success :json-false :applied :json-false
                                :reason "document_changed"
                                :error (format "%s changed since the server read it; nothing \
was applied" (if (eq buffer (plist-get session :origin)) "the buffer"
               (plist-get group :name))))))
        (plist-put group :buffer buffer)
        (plist-put group :hunks hunks)
        (plist-put group :index 0)
        (plist-put group :read-only buffer-read-only)
        (setq complex-edit--review group)
        (setq buffer-read-only t)
        (complex-edit-review-mode 1)
        (complex-edit-review--show)))))

(defun complex-edit-review--current ()
  "The hunk being decided."
  (nth (plist-get complex-edit--review :index) (plist-get complex-edit--review :hunks)))

(defconst complex-edit-review--lifetime 900
  "Seconds the server keeps a proposal, when its answer does not say.")

(defun complex-edit-review--lifetime (answer)
  "How long the server keeps ANSWER's proposal, for the first message of a review.
From ANSWER's proposalLifetimeSeconds, else the server's default."
  (let ((seconds (or (plist-get answer :proposalLifetimeSeconds)
                     complex-edit-review--lifetime)))
    (if (>= seconds 120) (format "%d min" (round seconds 60)) (format "%d s" seconds))))

(defun complex-edit-review--file-label ()
  "\"caller.py, file 2/3: \" while several files are reviewed, else \"\"."
  (let* ((groups (plist-get (plist-get complex-edit--review :session) :groups))
         (count (length groups)))
    (if (< count 2) ""
      (format "%s, file %d/%d: " (plist-get complex-edit--review :name)
              (1+ (cl-position complex-edit--review groups)) count))))

(defun complex-edit-review--show ()
  "Move to the current hunk and say what the keys do."
  (let ((hunks (plist-get complex-edit--review :hunks))
        (current (complex-edit-review--current)))
    (dolist (hunk hunks)
      (overlay-put (complex-edit--hunk-overlay hunk) 'priority (if (eq hunk current) 10 0)))
    (goto-char (overlay-start (complex-edit--hunk-overlay current)))
    (let ((message-log-max nil))
      (message "%sChange %d/%d%s: y keep, n drop, a/d keep/drop rest, RET apply, q quit%s"
               (complex-edit-review--file-label)
               (1+ (plist-get complex-edit--review :index)) (length hunks)
               (if-let ((label (complex-edit--hunk-label current))) (format " (%s)" label) "")
               (let ((session (plist-get complex-edit--review :session)))
                 (if (plist-get session :shown) ""
                   (plist-put session :shown t)
                   (format " (the server keeps it %s)"
                           (complex-edit-review--lifetime (plist-get session :answer)))))))))

(defun complex-edit-review--decide (decision &optional rest)
  "Give the current hunk (and with REST every later one of this file) DECISION.
Then go on: to the next undecided change, the next file's, or, when every one
is decided, send the kept ones."
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (let* ((hunks (plist-get complex-edit--review :hunks))
         (index (plist-get complex-edit--review :index)))
    (dolist (hunk (if rest (nthcdr index hunks) (list (nth index hunks))))
      (setf (complex-edit--hunk-decision hunk) decision)
      (overlay-put (complex-edit--hunk-overlay hunk) 'face
                   (if (eq decision 'keep) 'complex-edit-review-old 'shadow)))
    (let ((next (cl-position nil hunks :key #'complex-edit--hunk-decision))
          (session (plist-get complex-edit--review :session)))
      (cond
       (next
        (plist-put complex-edit--review :index next)
        (complex-edit-review--show))
       ((cadr (memq complex-edit--review (plist-get session :groups)))
        (let ((following (cadr (memq complex-edit--review (plist-get session :groups)))))
          (complex-edit-review--end)
          (complex-edit-review--open session following)))
       (t (complex-edit-review-apply))))))

(defun complex-edit-review-keep () "Keep this change." (interactive)
       (complex-edit-review--decide 'keep))
(defun complex-edit-review-drop () "Drop this change." (interactive)
       (complex-edit-review--decide 'drop))
(defun complex-edit-review-keep-rest () "Keep this change and every later one." (interactive)
       (complex-edit-review--decide 'keep t))
(defun complex-edit-review-drop-rest () "Drop this change and every later one." (interactive)
       (complex-edit-review--decide 'drop t))

(defun complex-edit-review--move (step)
  "Go STEP hunks forward (negative: back), wrapping around."
  (let ((count (length (plist-get complex-edit--review :hunks))))
    (plist-put complex-edit--review :index
               (mod (+ (plist-get complex-edit--review :index) step) count))
    (complex-edit-review--show)))

(defun complex-edit-review-next () "Go to the next change." (interactive)
       (complex-edit-review--move 1))
(defun complex-edit-review-previous () "Go to the previous change." (interactive)
       (complex-edit-review--move -1))

(defun complex-edit-review--end ()
  "Take the review off this buffer: its overlays, its keys, its read-only state."
  (let ((review complex-edit--review))
    (mapc (lambda (hunk) (delete-overlay (complex-edit--hunk-overlay hunk)))
          (plist-get review :hunks))
    (setq buffer-read-only (plist-get review :read-only)
          complex-edit--review nil)
    (complex-edit-review-mode -1)))

(defun complex-edit-review--end-all (session)
  "Take SESSION's review off every buffer still showing it."
  (dolist (group (plist-get session :groups))
    (let ((buffer (plist-get group :buffer)))
      (when (and (buffer-live-p buffer)
                 (eq (buffer-local-value 'complex-edit--review buffer) group))
        (with-current-buffer buffer (complex-edit-review--end))))))

(defun complex-edit-review--send (backend answer keep on-answer)
  "Send the ids KEEP of ANSWER's proposal to the server through BACKEND.
ON-ANSWER gets the server's answer (a plist); a JSON-RPC error becomes a
failed one, in the server's words."
  (complex-edit-send
   backend
   `(:command "complexEdit.applyReview"
     :arguments [(:proposalId ,(plist-get answer :proposalId) :keep ,(vconcat keep))])
   (lambda (result) (funcall on-answer (complex-edit--plist result)))
   (lambda (err)
     (funcall on-answer (complex-edit-error-answer (complex-edit--plist err))))))

(defun complex-edit-review--landed-in (landed uri)
  "Did the change of the document at URI land, by the server's answer LANDED?"
  (let ((entry (seq-find (lambda (document) (equal (plist-get document :uri) uri))
                         (plist-get landed :documents))))
    (complex-edit--true-p (if entry (plist-get entry :applied) (plist-get landed :applied)))))

(defun complex-edit-review--summary (groups landed)
  "What the review of GROUPS kept and what landed where, by the answer LANDED.
For example \"kept 2 of 3 changes: doc.py 1 of 2 landed, caller.py 1 of 1
landed\"."
  (let* ((hunks (apply #'append (mapcar (lambda (g) (plist-get g :hunks)) groups)))
         (kept (cl-count 'keep hunks :key #'complex-edit--hunk-decision))
         (files
          (delq nil
                (mapcar
                 (lambda (group)
                   (let* ((mine (plist-get group :hunks))
                          (mine-kept (cl-count 'keep mine :key #'complex-edit--hunk-decision)))
                     (when mine
                       (format "%s %d of %d %s" (plist-get group :name) mine-kept (length mine)
                               (cond ((zerop mine-kept) "dropped")
                                     ((complex-edit-review--landed-in
                                       landed (plist-get group :uri))
                                      "landed")
                                     (t "not applied"))))))
                 groups))))
    (format "kept %d of %d change%s%s" kept (length hunks) (if (= (length hunks) 1) "" "s")
            (if (cdr groups) (concat ": " (string-join files ", ")) ""))))

(defun complex-edit-review-apply ()
  "Send the changes kept so far, in every file, to the server; end the review.
The server applies them; the changes not decided yet are dropped."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (let* ((session (plist-get complex-edit--review :session))
         (origin (plist-get session :origin))
         (answer (plist-get session :answer))
         (groups (cl-remove-if-not (lambda (group) (plist-get group :hunks))
                                   (plist-get session :groups)))
         (hunks (apply #'append (mapcar (lambda (group) (plist-get group :hunks)) groups)))
         (kept (cl-remove-if-not (lambda (hunk) (eq (complex-edit--hunk-decision hunk) 'keep))
                                 hunks))
         (proposed (length (plist-get answer :hunks)))
         (counts (list :kept (length kept) :declined (- proposed (length kept)) :hunks nil)))
    ;; Writable again before the server's edit arrives.
    (complex-edit-review--end-all session)
    (when (buffer-live-p origin)
      (switch-to-buffer origin))
    (complex-edit-review--send
     (plist-get session :backend) answer (mapcar #'complex-edit--hunk-id kept)
     (lambda (landed)
       (let ((summary (complex-edit-review--summary groups landed)))
         (complex-edit-report
          origin
          (apply #'complex-edit-with
                 (cond ((null kept)
                        (complex-edit-with answer :applied :json-false :message
                                           (format "%s; nothing was applied" summary)))
                       ((complex-edit--true-p (plist-get landed :success))
                        ;; (the proposal's own message said that nothing was applied yet)
                        (complex-edit-with landed :message
                                           (if-let ((said (plist-get landed :message)))
                                               (format "%s (%s)" summary said)
                                             summary)))
                       ((equal (plist-get landed :reason) "document_changed")
                        (complex-edit-with landed :error
                                           (format "%s, but %s" summary
                                                   (or (plist-get landed :error)
                                                       "a document changed under them"))))
                       (t landed))
                 counts)
          (plist-get session :uri)))))))

(defun complex-edit-review-quit ()
  "End the review without applying anything."
  (interactive)
  (unless complex-edit--review (user-error "Complex Edit: no review here"))
  (dolist (group (plist-get (plist-get complex-edit--review :session) :groups))
    (dolist (hunk (plist-get group :hunks))
      (setf (complex-edit--hunk-decision hunk) 'drop)))
  (complex-edit-review-apply))

(provide 'complex-edit-review)

;;; complex-edit-review.el ends here
